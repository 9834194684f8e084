/**
 * Durable workspaces on a real dev server and worker: a running session rewound to turn 2 (its
 * files and its conversation), a rewind refused because someone edited files beside the session
 * (by the workflow, and by our CLI before the update enters history), and a fork into a new
 * directory that leaves the original untouched.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { AgentResult, AgentState, TranscriptEntry } from '../../src/shared/contract';
import { endSignal, rewindUpdate, stateQuery, transcriptQuery } from '../../src/workflows/definitions';
import { byTurn, reply, text, toolUse, turnOf, type FakeReply, type RecordedRequest } from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(180_000);

const harness = fileHarness();

/** Every file under `root` (`.git` aside), path → content. */
function treeOf(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (directory: string) => {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      if (name === '.git') continue;
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
  return files;
}

async function transcriptOf(handle: {
  query: (query: typeof transcriptQuery, request: { limit: number }) => Promise<{ entries: TranscriptEntry[] }>;
}): Promise<TranscriptEntry[]> {
  return (await handle.query(transcriptQuery, { limit: 1000 })).entries;
}

async function stateWhere(
  handle: { query: (query: typeof stateQuery) => Promise<AgentState> },
  predicate: (state: AgentState) => boolean,
): Promise<AgentState> {
  for (;;) {
    const state = await handle.query(stateQuery);
    if (predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Three turns of a refactor that change files with Write, Edit and Bash. */
const REFACTOR: ((request: RecordedRequest) => FakeReply)[] = [
  () =>
    reply([
      toolUse('Write', { file_path: 'src/a.txt', content: 'alpha\n' }),
      toolUse('Bash', { command: 'mkdir -p gen && echo one > gen/one.txt' }),
    ]),
  () =>
    reply([
      toolUse('Edit', { file_path: 'src/a.txt', old_string: 'alpha', new_string: 'beta' }),
      toolUse('Bash', { command: 'echo two > gen/two.txt' }),
    ]),
  () =>
    reply([
      toolUse('Bash', { command: 'rm gen/one.txt && echo three > gen/three.txt' }),
      toolUse('Write', { file_path: 'src/b.txt', content: 'bee\n' }),
    ]),
];

test('rewind of a running session to turn 2: the files as they were, the conversation as it was, then another way to the end', async () => {
  const workdir = makeRepo({ 'README.md': '# repo\n' });
  let phase: 'first' | 'second' = 'first';
  let filesAtTurn2: Record<string, string> | undefined;
  let messagesAtTurn2: unknown;
  let releaseHeld!: () => void;
  const held = new Promise<FakeReply>((resolve) => (releaseHeld = () => resolve(reply([text('(stale)')]))));
  let holding = false;
  harness.fake.handler = byTurn([
    REFACTOR[0]!,
    REFACTOR[1]!,
    (request) => {
      if (phase === 'second') return reply([toolUse('Write', { file_path: 'src/c.txt', content: 'another way\n' })]);
      // Turn 3's request carries the conversation just after turn 2's tool results; its files are turn 2's.
      filesAtTurn2 = treeOf(workdir);
      messagesAtTurn2 = request.body.messages;
      return REFACTOR[2]!(request);
    },
    () => {
      if (phase === 'second') return reply([text('Done the other way.')]);
      holding = true;
      return { kind: 'hold', release: held };
    },
  ]);
  const handle = await harness.start({ prompt: 'Refactor', workdir });
  while (!holding) await harness.fake.waitForRequests(harness.fake.requests.length + 1);
  expect(treeOf(workdir)).toEqual({
    'README.md': '# repo\n',
    'src/a.txt': 'beta\n',
    'src/b.txt': 'bee\n',
    'gen/two.txt': 'two\n',
    'gen/three.txt': 'three\n',
  });
  const requestsBefore = harness.fake.requests.length;

  phase = 'second';
  const rewound = await handle.executeUpdate(rewindUpdate, { args: [{ turn: 2 }] });
  releaseHeld();
  expect(rewound).toMatchObject({ turn: 2, filesRestored: 3, notRestored: [] });
  expect(treeOf(workdir)).toEqual(filesAtTurn2);
  expect(filesAtTurn2).toEqual({
    'README.md': '# repo\n',
    'src/a.txt': 'beta\n',
    'gen/one.txt': 'one\n',
    'gen/two.txt': 'two\n',
  });

  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Done the other way.', turnCount: 4 });
  // The first request after the rewind is the conversation as of turn 2, exactly.
  const next = harness.fake.requests.slice(requestsBefore).find((request) => turnOf(request) === 2)!;
  expect(next.body.messages).toEqual(messagesAtTurn2);
  expect(treeOf(workdir)).toEqual({ ...filesAtTurn2, 'src/c.txt': 'another way\n' });
  expect(result.filesChanged?.map(({ path, change }) => `${change} ${path}`)).toEqual([
    'added gen/one.txt',
    'added gen/two.txt',
    'added src/a.txt',
    'added src/c.txt',
  ]);

  const transcript = await transcriptOf(handle);
  expect(transcript.filter((entry) => entry.type === 'transition' && entry.transition === 'rewind')).toEqual([
    expect.objectContaining({ turn: 2, detail: expect.stringContaining('to turn 2, files restored') }),
  ]);
  const state = await handle.query(stateQuery);
  expect(state.transitions).toContain('rewind');
  expect(state.snapshots.map((snapshot) => snapshot.turn)).toEqual([0, 1, 2, 3]);
});

test('a rewind reaches a turn taken before a continue-as-new: files and conversation as of that turn', async () => {
  const workdir = makeRepo({ 'README.md': '# repo\n' });
  let rewound = false;
  let messagesAtTurn1: unknown;
  harness.fake.handler = byTurn([
    REFACTOR[0]!,
    (request) => {
      if (rewound) return reply([text('Back after turn 1.')]);
      messagesAtTurn1 = request.body.messages;
      return REFACTOR[1]!(request);
    },
    REFACTOR[2]!,
    reply([text('Three turns done.')]),
  ]);
  const handle = await harness.start({ prompt: 'Refactor', workdir, interactive: true, continueAsNewAfterTurns: 1 });
  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 4);
  expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);

  rewound = true;
  const requestsBefore = harness.fake.requests.length;
  expect(await handle.executeUpdate(rewindUpdate, { args: [{ turn: 1 }] })).toMatchObject({ turn: 1 });
  expect(treeOf(workdir)).toEqual({ 'README.md': '# repo\n', 'src/a.txt': 'alpha\n', 'gen/one.txt': 'one\n' });
  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.transitions.includes('rewind'));
  expect(harness.fake.requests[requestsBefore]!.body.messages).toEqual(messagesAtTurn1);
  await handle.signal(endSignal);
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Back after turn 1.', turnCount: 2 });
});

test('a rewind refused for changes made beside the session names them and changes nothing; our CLI refuses before the update enters history', async () => {
  const workdir = makeRepo({ 'notes.txt': 'one\n' });
  let rewound = false;
  harness.fake.handler = byTurn([
    () =>
      rewound
        ? reply([text('Starting over.')])
        : reply([toolUse('Write', { file_path: 'notes.txt', content: 'two\n' })]),
    reply([text('Written.')]),
  ]);
  const handle = await harness.start({ prompt: 'Write two', workdir, interactive: true });
  await stateWhere(handle, (state) => state.status === 'waiting_input');
  writeFileSync(join(workdir, 'notes.txt'), 'edited by a person\n');
  writeFileSync(join(workdir, 'theirs.txt'), 'new\n');
  const before = treeOf(workdir);

  const refused = await handle.executeUpdate(rewindUpdate, { args: [{ turn: 0 }] }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
  const message = (refused as WorkflowUpdateFailedError).cause?.message ?? '';
  expect(message).toContain('modified notes.txt');
  expect(message).toContain('added theirs.txt');
  expect(treeOf(workdir)).toEqual(before);
  const state = await handle.query(stateQuery);
  expect(state).toMatchObject({ turn: 2, status: 'waiting_input' });
  expect(state.transitions).not.toContain('rewind');

  // The CLI checks first, here where it can see the workdir: nothing reaches the workflow.
  const updatesBefore = await updateEvents(handle);
  const cli = await harness.cli(['rewind', handle.workflowId, '--turn', '0']);
  expect(cli.code).toBe(1);
  expect(cli.stderr).toContain('modified notes.txt');
  expect(cli.stderr).toContain('added theirs.txt');
  expect(await updateEvents(handle)).toBe(updatesBefore);
  expect(treeOf(workdir)).toEqual(before);

  // Forced: the files go back, and the person's edits stay in the store as the previous snapshot.
  rewound = true;
  const forced = await harness.cli(['rewind', handle.workflowId, '--turn', '0', '--force']);
  expect(forced.stdout).toContain('Rewound');
  expect(forced.stdout).toMatch(/files before the rewind are kept as snapshot sha256:/);
  expect(treeOf(workdir)).toEqual({ 'notes.txt': 'one\n' });
  await stateWhere(handle, (current) => current.status === 'waiting_input' && current.transitions.includes('rewind'));
  await handle.signal(endSignal);
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
});

test('fork at turn 2 into a new directory: the original stays byte-identical, and both complete', async () => {
  const workdir = makeRepo({ 'README.md': '# repo\n' });
  harness.fake.handler = (request) => {
    const forked = JSON.stringify(request.body.messages).includes('Try it with a d');
    if (forked)
      return turnOf(request) === 2
        ? reply([toolUse('Write', { file_path: 'src/d.txt', content: 'dee\n' })])
        : reply([text('Forked and done.')]);
    return byTurn([...REFACTOR, reply([text('Original done.')])])(request);
  };
  const original = await harness.start({ prompt: 'Refactor', workdir });
  expect(await original.result()).toMatchObject({ reason: 'completed', finalText: 'Original done.' });
  const originalFiles = treeOf(workdir);

  // What the session changed, from our CLI: the whole session as a diffstat, one turn as a diff.
  const stat = await harness.cli(['diff', original.workflowId, '--stat']);
  expect(stat.stdout).toContain(' gen/three.txt | 1 +');
  expect(stat.stdout).toContain('4 files changed, 4 insertions(+)');
  const turnTwo = await harness.cli(['diff', original.workflowId, '--turn', '2']);
  expect(turnTwo.stdout).toContain(
    'diff --git a/src/a.txt b/src/a.txt\n--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,1 +1,1 @@\n-alpha\n+beta\n',
  );
  expect(turnTwo.stdout).toContain('--- /dev/null\n+++ b/gen/two.txt');
  expect(turnTwo.stdout).not.toContain('three');

  const forkDir = join(mkdtempSync(join(tmpdir(), 'fork-')), 'copy');
  const cli = await harness.cli([
    'fork',
    original.workflowId,
    '--turn',
    '2',
    '--workdir',
    forkDir,
    '--no-worker',
    'Try it with a d',
  ]);
  if (cli.code !== 0) console.error(cli.stderr);
  expect(cli.code).toBe(0);
  expect(cli.stdout).toContain('Forked and done.');
  expect(treeOf(forkDir)).toEqual({
    'README.md': '# repo\n',
    'src/a.txt': 'beta\n',
    'gen/one.txt': 'one\n',
    'gen/two.txt': 'two\n',
    'src/d.txt': 'dee\n',
  });
  expect(treeOf(workdir)).toEqual(originalFiles);

  const forkId = cli.stdout.match(/Started workflow (\S+)/)![1]!;
  const fork = harness.client.workflow.getHandle(forkId);
  const description = await fork.describe();
  expect(description.memo).toMatchObject({ forkedFrom: { workflowId: original.workflowId, turn: 2 } });
  for (let found = false; !found; await new Promise((resolve) => setTimeout(resolve, 200))) {
    for await (const listed of harness.client.workflow.list({ query: `AgentForkedFrom='${original.workflowId}'` }))
      found ||= listed.workflowId === forkId;
  }
  expect((await harness.cli(['status', original.workflowId])).stdout).toContain(`forks: ${forkId}`);
  const forkStatus = (await harness.cli(['status', forkId])).stdout;
  expect(forkStatus).toContain(`forked from ${original.workflowId} at turn 2`);
  expect(forkStatus).toContain('workspace: snapshots after turns 2, 3');
});

async function updateEvents(handle: {
  fetchHistory: () => Promise<{ events?: { workflowExecutionUpdateAcceptedEventAttributes?: unknown }[] | null }>;
}): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length;
}
