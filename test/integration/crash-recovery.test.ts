/**
 * A worker killed with SIGKILL in the middle of a tool call, and in the middle of a model call:
 * a new worker finishes the session, the repository ends exactly as after an uncrashed run,
 * and every edit is applied once.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  byTurn,
  isCompaction,
  lastToolResults,
  reply,
  text,
  toolResultText,
  toolUse,
  turnOf,
  type FakeReply,
  type RecordedRequest,
} from '../support/fake-anthropic';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import { Harness, killProcess, makeRepo } from '../support/harness';

jest.setTimeout(240_000);

const FILES = {
  // The marks of the test, not of the refactor: left out of the session's snapshots too.
  '.gitignore': '.marks/\n',
  'src/config.js': 'function parseConfig(text) {\n  return JSON.parse(text);\n}\nmodule.exports = { parseConfig };\n',
  'src/main.js': "const { parseConfig } = require('./config');\nconsole.log(parseConfig('{\"a\":1}'));\n",
};

/**
 * Where a command leaves its "I am running" mark: inside the repository (a sandboxed command can
 * write nowhere else), in a folder the snapshot leaves out.
 */
const MARKS = '.marks';

/** The scripted refactor: read, edit, run a slow command, edit again, finish. */
function script(modelTurnHook?: (turn: number, request: RecordedRequest) => FakeReply | undefined) {
  const replies: ((request: RecordedRequest) => FakeReply)[] = [
    () => reply([toolUse('Read', { file_path: 'src/config.js' }), toolUse('Read', { file_path: 'src/main.js' })]),
    () =>
      reply([
        toolUse('Edit', {
          file_path: 'src/config.js',
          old_string: 'parseConfig',
          new_string: 'loadConfig',
          replace_all: true,
        }),
      ]),
    () =>
      reply([
        toolUse('Bash', {
          // The mark is left out of the snapshot: the repository must end as in an uncrashed run.
          command: `mkdir -p out ${MARKS}; echo a > out/a.txt; echo b > out/b.txt; echo started >> ${MARKS}/started; sleep 3; node src/config.js && echo checked >> build.log`,
          description: 'Check the config module',
        }),
      ]),
    () =>
      reply([
        toolUse('Edit', {
          file_path: 'src/main.js',
          old_string: 'parseConfig',
          new_string: 'loadConfig',
          replace_all: true,
        }),
      ]),
    () => reply([text('Renamed parseConfig to loadConfig.')]),
  ];
  return byTurn(
    replies.map((make, turn) => (request: RecordedRequest) => modelTurnHook?.(turn, request) ?? make(request)),
  );
}

function snapshot(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (directory: string) => {
    for (const name of readdirSync(directory)) {
      if (name === MARKS) continue;
      const path = join(directory, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
  return files;
}

/**
 * Resolves once `path` exists and holds something (the command's own signal that it is running).
 * `echo started >> file` creates the file before it writes: a worker killed in between would
 * leave it empty, and the assertions on its content would fail for a reason the test did not mean.
 */
async function fileAppears(path: string): Promise<void> {
  while (!existsSync(path) || statSync(path).size === 0) await new Promise((resolve) => setTimeout(resolve, 50));
}

let expected: Record<string, string>;
let harness: Harness;

beforeAll(async () => {
  // The reference: the same session without a crash.
  harness = await Harness.start();
  await harness.startWorker();
  const workdir = makeRepo(FILES);
  harness.fake.handler = script();
  const result = await harness.run({ prompt: 'Rename parseConfig to loadConfig everywhere', workdir });
  expect(result.reason).toBe('completed');
  expected = snapshot(workdir);
  expect(expected['build.log']).toBe('checked\n');
  expect(expected['src/main.js']).toContain('loadConfig');
  await harness.stop();
});

afterEach(async () => {
  await harness?.stop();
});

test('SIGKILL during a Bash call: the retry names exactly the files the lost run changed and does not run it again; every edit applied once', async () => {
  harness = await Harness.start();
  harness.fake.handler = script();
  const workdir = makeRepo(FILES);
  const markerFile = join(workdir, MARKS, 'started');
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({ prompt: 'Rename parseConfig to loadConfig everywhere', workdir });

  await fileAppears(markerFile); // the slow command is running on the first worker
  await killProcess(first);
  await harness.startWorkerProcess();

  const result = await handle.result();
  expect(result).toMatchObject({ reason: 'completed', turnCount: 5, finalText: 'Renamed parseConfig to loadConfig.' });
  // The lost run got as far as its two files; it was killed with its worker (no orphan finished
  // it) and not run again, so the check it had not reached never wrote build.log.
  const { 'build.log': _notReached, ...reached } = expected;
  expect(snapshot(workdir)).toEqual(reached);
  expect(readFileSync(markerFile, 'utf8')).toBe('started\n');
  const bashResult = harness.fake.requests
    .filter((request) => turnOf(request) === 3)
    .map((request) => lastToolResults(request)[0]!)[0]!;
  expect(toolResultText(bashResult)).toContain(
    'It was not run again. Since it started, the workspace changed: created out/a.txt, created out/b.txt.',
  );
  expect(bashResult.is_error).toBe(true);
});

test('SIGKILL during a model call: the call is retried on the new worker, every edit applied once', async () => {
  harness = await Harness.start();
  let releaseHeld!: () => void;
  const held = new Promise<FakeReply>((resolve) => {
    releaseHeld = () => resolve(reply([text('(stale reply to a dead worker)')]));
  });
  let heldOnce = false;
  harness.fake.handler = script((turn) => {
    // Hold the first request of turn 3 (after the first Edit and the command) open: the worker dies waiting.
    if (turn === 3 && !heldOnce) {
      heldOnce = true;
      return { kind: 'hold', release: held };
    }
    return undefined;
  });
  const workdir = makeRepo(FILES);
  const markerFile = join(workdir, MARKS, 'started');
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({ prompt: 'Rename parseConfig to loadConfig everywhere', workdir });

  while (!heldOnce) await harness.fake.waitForRequests(harness.fake.requests.length + 1);
  await killProcess(first);
  releaseHeld();
  await harness.startWorkerProcess();

  const result = await handle.result();
  expect(result).toMatchObject({ reason: 'completed', turnCount: 5 });
  expect(snapshot(workdir)).toEqual(expected);
  expect(readFileSync(markerFile, 'utf8')).toBe('started\n');
  const turnThreeRequests = harness.fake.requests.filter((request) => turnOf(request) === 3);
  expect(turnThreeRequests).toHaveLength(2);
  // The retried request is the same conversation, rebuilt from the content store by another process.
  expect(turnThreeRequests[1]!.body.messages).toEqual(turnThreeRequests[0]!.body.messages);
});

test('SIGKILL during a compaction: the resumed run compacts once and completes', async () => {
  harness = await Harness.start();
  let releaseHeld!: () => void;
  const held = new Promise<FakeReply>((resolve) => {
    releaseHeld = () => resolve(reply([text('<summary>stale summary for a dead worker</summary>')]));
  });
  let compactions = 0;
  harness.fake.handler = (request) => {
    if (isCompaction(request)) {
      compactions++;
      return compactions === 1
        ? { kind: 'hold', release: held }
        : reply([text('<summary>SUMMARY-AFTER-CRASH</summary>')]);
    }
    if (JSON.stringify(request.body.messages).includes('SUMMARY-AFTER-CRASH'))
      return reply([text('Finished from the summary.')]);
    return reply([toolUse('Read', { file_path: `f${turnOf(request)}.txt` })]);
  };
  // A 30,000-token window and 8 KB files: autocompact after a few reads.
  const files = Object.fromEntries(
    Array.from({ length: 8 }, (_, index) => [`f${index}.txt`, `${String(index).repeat(39)}\n`.repeat(200)]),
  );
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({
    prompt: 'Read the files',
    workdir: makeRepo(files),
    contextWindowTokens: 30_000,
  });

  while (compactions === 0) await harness.fake.waitForRequests(harness.fake.requests.length + 1);
  await killProcess(first);
  releaseHeld();
  await harness.startWorkerProcess();

  const result = await handle.result();
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Finished from the summary.' });
  expect(compactions).toBe(2); // the held request died with its worker; the retry was answered
  const history = await handle.fetchHistory();
  const compactionEvents = history.events!.filter(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'compactConversation',
  );
  expect(compactionEvents).toHaveLength(1); // one compaction in the workflow, retried as one activity
  const state = await handle.query<{ contextEdits: string[] }>('state');
  expect(state.contextEdits.filter((edit) => edit === 'autocompact')).toHaveLength(1);
});

/** Polls the `state` query (answered by whichever worker is up) until the predicate holds. */
async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<AgentState> {
  for (;;) {
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state && predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('an approval and a message sent while no worker runs take effect when one comes back', async () => {
  harness = await Harness.start();
  const requests: RecordedRequest[] = [];
  const replies = [
    () => reply([toolUse('Write', { file_path: 'approved.txt', content: 'written once\n' }, 'toolu_needs_ok')]),
    () => reply([text('Written.')]),
    () => reply([text('Got your message.')]),
  ];
  harness.fake.handler = (request) => {
    requests.push(request);
    return (replies[requests.length - 1] ?? (() => reply([text('(script ended)')])))();
  };
  const workdir = makeRepo({});
  let worker = await harness.startWorkerProcess();
  const handle = await harness.start({ prompt: 'write it', workdir, interactive: true, permissionMode: 'ask' });

  await stateWhere(handle, (state) => state.pendingApprovals.length === 1);
  await killProcess(worker);
  const approval = handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_needs_ok', decision: 'allow' }] });
  worker = await harness.startWorkerProcess();
  expect(await approval).toEqual({ toolUseId: 'toolu_needs_ok', decision: 'allow' });

  await stateWhere(handle, (state) => state.status === 'waiting_input');
  await killProcess(worker);
  await handle.signal('userMessage', { text: 'One more thing.' });
  worker = await harness.startWorkerProcess();
  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 3);
  await handle.signal('end');

  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Got your message.' });
  expect(readFileSync(join(workdir, 'approved.txt'), 'utf8')).toBe('written once\n');
  expect(JSON.stringify(requests[2]!.body.messages)).toContain('One more thing.');
});

test('an interrupt sent while no worker runs stops the tools when one comes back', async () => {
  harness = await Harness.start();
  harness.fake.handler = byTurn([
    reply([
      toolUse('Bash', { command: `mkdir -p ${MARKS}; echo started > ${MARKS}/started; sleep 120; touch finished.txt` }),
    ]),
  ]);
  const workdir = makeRepo({});
  const marker = join(workdir, MARKS, 'started');
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({ prompt: 'run it', workdir });
  await fileAppears(marker);
  await killProcess(first);
  await handle.signal('interrupt', { reason: 'stop that' });
  await harness.startWorkerProcess();
  const result = await handle.result();
  expect(result.reason).toBe('aborted_tools');
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 100 });
  expect(entries.filter((entry) => entry.type === 'tool_result')).toEqual([
    // Stopped, or (when the retry answered before the interrupt reached it) not run again: either way the command did not finish.
    expect.objectContaining({
      isError: true,
      preview: expect.stringMatching(/Interrupted by the user|It was not run again/),
    }),
  ]);
  expect(existsSync(join(workdir, 'finished.txt'))).toBe(false);
});

test('a stop hook interrupted by a worker kill runs again on the new worker, and its block reaches the model', async () => {
  harness = await Harness.start();
  const workdir = makeRepo({});
  const marker = join(workdir, MARKS, 'hook-started');
  const requests: RecordedRequest[] = [];
  harness.fake.handler = (request) => {
    requests.push(request);
    return requests.length === 1 ? reply([text('Done, I think.')]) : reply([text('Fixed what the hook asked.')]);
  };
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({
    prompt: 'finish up',
    workdir,
    // Blocks the first end (after a pause long enough to be killed in), allows the second.
    stopHooks: [
      {
        command: `if grep -q '"stop_hook_active":true'; then exit 0; fi; mkdir -p ${MARKS}; echo started >> ${MARKS}/hook-started; sleep 2; echo "run the linter first" >&2; exit 2`,
      },
    ],
  });
  await fileAppears(marker);
  await killProcess(first);
  await harness.startWorkerProcess();
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Fixed what the hook asked.' });
  expect(readFileSync(marker, 'utf8')).toBe('started\nstarted\n'); // killed once, run again
  expect(JSON.stringify(requests[1]!.body.messages)).toContain('run the linter first');
});
