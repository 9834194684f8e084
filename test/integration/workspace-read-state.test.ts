/**
 * The read-state comes back with the files, on a real dev server and worker: after a rewind
 * (files put back, and conversation only) and in a fork, the model's Edit of a file it read
 * before the checkpoint works, while an Edit of a file changed since it was read, or never read
 * by then, still fails.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentState } from '../../src/shared/contract';
import { endSignal, rewindUpdate, stateQuery } from '../../src/workflows/definitions';
import {
  byTurn,
  lastToolResults,
  reply,
  text,
  toolResultText,
  toolUse,
  type FakeReply,
  type RecordedRequest,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(180_000);

const harness = fileHarness();

const MODIFIED = 'File has been modified since it was last read';
const NOT_READ = 'File has not been read yet';

/** The files of a flat directory (`.git` aside), name → content. */
function filesOf(directory: string): Record<string, string> {
  const names = readdirSync(directory).filter((name) => name !== '.git');
  return Object.fromEntries(names.map((name) => [name, readFileSync(join(directory, name), 'utf8')]));
}

type Outcome = { ok: true } | { ok: false; error: string };

/** The outcomes of the tool calls whose results a request carries, in order. */
function outcomesOf(request: RecordedRequest): Outcome[] {
  return lastToolResults(request).map((block) =>
    block.is_error ? { ok: false, error: toolResultText(block) } : { ok: true },
  );
}

const edit = (file: string, from: string, to: string) =>
  toolUse('Edit', { file_path: file, old_string: from, new_string: to });
const failed = (message: string): Outcome => ({ ok: false, error: expect.stringContaining(message) });

async function stateWhere(
  handle: { query: (query: typeof stateQuery) => Promise<AgentState> },
  predicate: (state: AgentState) => boolean,
): Promise<void> {
  while (!predicate(await handle.query(stateQuery))) await new Promise((resolve) => setTimeout(resolve, 100));
}

test('after a rewind the files the model read can be edited; files changed since their read cannot', async () => {
  const workdir = makeRepo({ 'a.txt': 'one\n', 'b.txt': 'two\n', 'c.txt': 'three\n', 'd.txt': 'four\n' });
  type Pass = 'first' | 'rewound' | 'conversation only';
  let pass: Pass = 'first';
  const outcomes: Record<string, Outcome[]> = {};
  /** Replies `next`, keeping the outcomes of the calls the request answers (those of the reply before) as `name`. */
  const after = (name: string, next: FakeReply) => (request: RecordedRequest) => (
    (outcomes[name] = outcomesOf(request)),
    next
  );
  const script: Record<Pass, ((request: RecordedRequest) => FakeReply)[]> = {
    first: [
      after('reads', reply([edit('a.txt', 'one', 'uno'), toolUse('Bash', { command: 'echo changed > b.txt' })])),
      after('first edits', reply([text('First pass done.')])),
    ],
    rewound: [
      after(
        'reads, rewound to',
        reply([
          edit('a.txt', 'one', 'eins'),
          edit('b.txt', 'two', 'zwei'),
          toolUse('Bash', { command: 'echo other > c.txt' }),
        ]),
      ),
      after('edits of what turn 1 read', reply([edit('c.txt', 'three', 'drei')])),
      after('edit of a file changed since', reply([text('Second pass done.')])),
    ],
    'conversation only': [
      after('reads, rewound to again', reply([edit('d.txt', 'four', 'vier'), edit('a.txt', 'one', 'uno')])),
      after('edits with the files kept', reply([text('Third pass done.')])),
    ],
  };
  harness.fake.handler = (request) => {
    const read = reply(['a.txt', 'b.txt', 'c.txt', 'd.txt'].map((file) => toolUse('Read', { file_path: file })));
    return byTurn([read, ...script[pass]])(request);
  };
  const handle = await harness.start({ prompt: 'Translate the numbers', workdir, interactive: true });
  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 3);
  expect(outcomes['reads']).toEqual([{ ok: true }, { ok: true }, { ok: true }, { ok: true }]);
  expect(outcomes['first edits']).toEqual([{ ok: true }, { ok: true }]);

  pass = 'rewound';
  expect(await handle.executeUpdate(rewindUpdate, { args: [{ turn: 1 }] })).toMatchObject({
    turn: 1,
    filesRestored: 2,
  });
  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 4);
  // Turn 1 read a and b as they are again: both edits work, though a was edited and b overwritten after the read.
  expect(outcomes['edits of what turn 1 read']).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
  // The check still holds: c was read at turn 1, then changed by a command.
  expect(outcomes['edit of a file changed since']).toEqual([failed(MODIFIED)]);

  pass = 'conversation only';
  expect(await handle.executeUpdate(rewindUpdate, { args: [{ turn: 1, files: false }] })).toMatchObject({
    turn: 1,
    filesRestored: 0,
  });
  await stateWhere(
    handle,
    (state) =>
      state.status === 'waiting_input' &&
      state.turn === 3 &&
      state.transitions.filter((name) => name === 'rewind').length === 2,
  );
  // The files were not put back: d is as turn 1 read it, a is not (the model must read it again).
  expect(outcomes['edits with the files kept']).toEqual([{ ok: true }, failed(MODIFIED)]);
  expect(filesOf(workdir)).toEqual({ 'a.txt': 'eins\n', 'b.txt': 'zwei\n', 'c.txt': 'other\n', 'd.txt': 'vier\n' });
  await handle.signal(endSignal);
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Third pass done.' });
});

test('a fork starts with what the original had read by its turn', async () => {
  const workdir = makeRepo({ 'a.txt': 'one\n', 'b.txt': 'two\n', 'c.txt': 'three\n' });
  const outcomes: Outcome[][] = [];
  const fork = byTurn([
    reply([text('(unused: a fork of turn 1 starts with one reply of the model)')]),
    () => reply([edit('a.txt', 'one', 'uno'), edit('b.txt', 'two', 'dos'), edit('c.txt', 'three', 'tres')]),
    (request) => ((outcomes[1] = outcomesOf(request)), reply([toolUse('Bash', { command: 'echo mine > a.txt' })])),
    (request) => ((outcomes[2] = outcomesOf(request)), reply([edit('a.txt', 'uno', 'eins')])),
    (request) => ((outcomes[3] = outcomesOf(request)), reply([text('Fork done.')])),
  ]);
  const original = byTurn([
    reply([toolUse('Read', { file_path: 'a.txt' }), toolUse('Read', { file_path: 'b.txt' })]),
    reply([toolUse('Bash', { command: 'echo changed > b.txt' })]),
    reply([text('Original done.')]),
  ]);
  harness.fake.handler = (request) =>
    JSON.stringify(request.body.messages).includes('Edit in the fork') ? fork(request) : original(request);
  const handle = await harness.start({ prompt: 'Read and change', workdir });
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Original done.' });

  const forkDir = join(mkdtempSync(join(tmpdir(), 'fork-')), 'copy');
  const cli = await harness.cli([
    'fork',
    handle.workflowId,
    '--turn',
    '1',
    '--workdir',
    forkDir,
    '--no-worker',
    'Edit in the fork',
  ]);
  if (cli.code !== 0) console.error(cli.stderr);
  expect(cli.stdout).toContain('Fork done.');
  // a and b were read by turn 1 (b changed only later, in the original); c was never read.
  expect(outcomes[1]).toEqual([{ ok: true }, { ok: true }, failed(NOT_READ)]);
  // A command changed a after the fork's edit: editing it again needs a new read.
  expect(outcomes[3]).toEqual([failed(MODIFIED)]);
  expect(filesOf(forkDir)).toEqual({ 'a.txt': 'mine\n', 'b.txt': 'dos\n', 'c.txt': 'three\n' });
  expect(filesOf(workdir)).toEqual({ 'a.txt': 'one\n', 'b.txt': 'changed\n', 'c.txt': 'three\n' });
});
