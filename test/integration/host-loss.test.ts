/**
 * Host loss. Two workers as two hosts (AGENT_HOST_ID host-a and host-b, each its own workspace
 * root, one PostgreSQL store, one dev server). A `repo` session lives on host-a; host-a is SIGKILLed for
 * good in the middle of a turn whose command is writing files. The session moves to host-b
 * (`workspace_moved`), the command runs again there from the last snapshot, and the session
 * completes: its branch, pushed to the remote, holds exactly what an uncrashed run's holds.
 * A `workdir` session instead waits (`waiting_host`) until its host is back or `durable-agent move`
 * names another.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { cloneName } from '../../src/shared/repository';
import { endSignal, rewindUpdate } from '../../src/workflows/definitions';
import {
  byTurn,
  lastToolResults,
  type RecordedRequest,
  reply,
  text,
  toolResultText,
  toolUse,
  turnOf,
} from '../support/fake-anthropic';
import { activityRuns } from '../support/history';
import { Harness, killProcess, makeRepo } from '../support/harness';
import { bareRemote, git } from '../support/git-remote';
import { scratchDir } from '../support/paths';

jest.setTimeout(240_000);

// As hosts share a store in production: PostgreSQL whenever the machine has it (CI always does;
// Jest gives each test file its own copy of the environment).
if (process.env.AGENT_TEST_POSTGRES_URL) process.env.AGENT_TEST_STORE = process.env.AGENT_TEST_POSTGRES_URL;

let harness: Harness;
afterEach(async () => {
  await harness?.stop();
});

/**
 * Writes a file, runs a command that writes another (on host-a, where the workdir lies in
 * host-a's root, it then waits until the host is killed), edits the first file (relative
 * paths), done. Like a model, it runs the command again when told the lost run's changes are gone.
 */
const script = () => (request: RecordedRequest) => {
  const results = request.body.messages.flatMap((message) =>
    typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_result'),
  );
  const done = results.filter((result) => !toolResultText(result).includes('It was not run again')).length;
  if (done === 0) return reply([toolUse('Write', { file_path: 'notes/a.txt', content: 'alpha\n' })]);
  if (done === 1)
    return reply([
      toolUse('Bash', {
        command: 'echo beta > b.txt; mkdir -p .marks; touch .marks/started; case "$PWD" in *host-a*) sleep 120;; esac',
      }),
    ]);
  if (done === 2)
    return reply([toolUse('Edit', { file_path: 'notes/a.txt', old_string: 'alpha', new_string: 'gamma' })]);
  return reply([text('Done.')]);
};

const WORKSPACE_ACTIVITIES = [
  'prepareSession',
  'runTool',
  'runStopHooks',
  'snapshotWorkspace',
  'commitBranch',
  'closeSession',
];

test('host-a is SIGKILLed for good mid-command: the repo session moves to host-b and its branch holds exactly what an uncrashed run gives', async () => {
  harness = await Harness.start();
  const remote = bareRemote({
    'README.md': '# app\n',
    '.gitignore': '.marks/\n',
    'src/config.ts': 'export function parseConfig() {}\n',
  });
  const rootA = join(scratchDir('roots'), 'host-a');
  const rootB = join(scratchDir('roots'), 'host-b');
  harness.fake.handler = script();

  // Only host-a at first: the session's workflow, its first model call and its clone are there.
  const hostA = await harness.startWorkerProcess({ AGENT_HOST_ID: 'host-a', AGENT_WORKSPACE_ROOTS: rootA });
  const handle = await harness.start({
    prompt: 'Write the notes',
    repo: { url: `file://${remote}`, ref: 'main' },
    host: 'host-a',
    hostLossTimeoutMs: 3_000,
    toolSummaries: false,
  });
  await harness.startWorker({ hostId: 'host-b', workspaceRoots: [rootB] });
  const marker = join(rootA, cloneName(handle.workflowId, handle.firstExecutionRunId, 0), '.marks', 'started');
  while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 50)); // the command runs on host-a
  const requestsBefore = harness.fake.requests.length;
  await killProcess(hostA);

  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Done.', turnCount: 5 });
  expect(requestsBefore).toBe(2);
  // The lost command was not run again by itself: the model learned that its changes were gone, and ran it again.
  const lostReport = toolResultText(lastToolResults(harness.fake.requests[2]!)[0]!);
  expect(lostReport).toContain('the host running it was lost before it finished');
  expect(lostReport).toContain('its changes to files are not there. It was not run again');

  const state = await handle.query<AgentState>('state');
  expect(state.host).toBe('host-b');
  expect(state.workdir).toBe(join(rootB, cloneName(handle.workflowId, handle.firstExecutionRunId, 1)));
  expect(state.transitions).toContain('workspace_moved');
  expect((await handle.describe()).searchAttributes.AgentHost).toEqual(['host-b']);
  expect(result.branch).toMatchObject({ name: `durable-agent/${handle.workflowId}`, pushed: true });

  // The uncrashed run of the same script, on host-b alone.
  harness.fake.handler = script();
  const uncrashed = await harness.start({
    prompt: 'Write the notes',
    repo: { url: `file://${remote}`, ref: 'main' },
    host: 'host-b',
    toolSummaries: false,
  });
  const uncrashedResult = (await uncrashed.result()) as AgentResult;
  expect(uncrashedResult.branch?.pushed).toBe(true);
  const tree = (branch: string) => git(['--git-dir', remote, 'ls-tree', '-r', branch]);
  expect(tree(`durable-agent/${handle.workflowId}`)).toBe(tree(`durable-agent/${uncrashed.workflowId}`));
  expect(git(['--git-dir', remote, 'show', `durable-agent/${handle.workflowId}:notes/a.txt`])).toBe('gamma');
  expect(git(['--git-dir', remote, 'show', `durable-agent/${handle.workflowId}:b.txt`])).toBe('beta');
  expect(git(['--git-dir', remote, 'rev-parse', `durable-agent/${handle.workflowId}~1`])).toBe(
    git(['--git-dir', remote, 'rev-parse', 'main']),
  );

  // Routing: every workspace activity ran on the host whose queue it was scheduled on — host-a
  // until it was lost, host-b after; the move's clone on the shared queue, on host-b; model
  // calls on the shared queue, served by both hosts.
  const runs = await activityRuns(handle);
  const workspace = runs.filter((run) => WORKSPACE_ACTIVITIES.includes(run.type));
  for (const run of workspace) expect(run.queue).toBe(`${harness.taskQueue}@${run.host}`);
  expect(new Set(workspace.map((run) => run.host))).toEqual(new Set(['host-a', 'host-b']));
  expect(runs.filter((run) => run.type === 'cloneRepository')).toEqual([
    { type: 'cloneRepository', queue: `${harness.taskQueue}@host-a`, host: 'host-a' },
    { type: 'cloneRepository', queue: harness.taskQueue, host: 'host-b' },
  ]);
  const models = runs.filter((run) => run.type === 'callModel');
  for (const run of models) expect(run.queue).toBe(harness.taskQueue);
  expect(new Set(models.map((run) => run.host))).toEqual(new Set(['host-a', 'host-b']));
});

test('a repo session rewound to turn 0 keeping its files: its branch and filesChanged still hold what it did before the rewind', async () => {
  harness = await Harness.start();
  const remote = bareRemote({
    'README.md': '# app\n',
    '.gitignore': '.marks/\n',
    'src/config.ts': 'export function parseConfig() {}\n',
  });
  let rewound = false;
  harness.fake.handler = (request) => {
    const results = lastToolResults(request);
    if (results.length > 0) return reply([text(rewound ? 'B written.' : 'A written.')]);
    return reply([toolUse('Write', { file_path: rewound ? 'b.txt' : 'a.txt', content: rewound ? 'b\n' : 'a\n' })]);
  };
  await harness.startWorker({ workspaceRoots: [scratchDir('roots')] });
  const handle = await harness.start({
    prompt: 'Write',
    repo: { url: `file://${remote}`, ref: 'main' },
    interactive: true,
    toolSummaries: false,
  });
  await stateWhere(handle, (state) => state.status === 'waiting_input');
  rewound = true;
  expect(await handle.executeUpdate(rewindUpdate, { args: [{ turn: 0, files: false }] })).toMatchObject({ turn: 0 });
  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.transitions.includes('rewind'));
  await handle.signal(endSignal);
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'B written.', branch: { pushed: true } });
  expect(result.filesChanged?.map(({ path, change }) => ({ path, change }))).toEqual([
    { path: 'a.txt', change: 'added' },
    { path: 'b.txt', change: 'added' },
  ]);
  const branch = `durable-agent/${handle.workflowId}`;
  expect(git(['--git-dir', remote, 'diff', '--name-status', '--no-renames', 'main', branch])).toBe(
    'A\ta.txt\nA\tb.txt',
  );
});

async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<AgentState> {
  for (;;) {
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state && predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function searchAttributeWhere(handle: WorkflowHandle, predicate: (status: unknown) => boolean): Promise<void> {
  while (!predicate((await handle.describe()).searchAttributes.AgentStatus))
    await new Promise((resolve) => setTimeout(resolve, 100));
}

/** A workdir session on host-a, host-a SIGKILLed in turn 2's command: the session waits for it. */
async function lostWorkdirSession() {
  harness = await Harness.start();
  harness.fake.handler = byTurn([
    reply([toolUse('Write', { file_path: 'a.txt', content: 'alpha\n' })]),
    // Slow on host-a, once (a lost run); quick when run again there, or in the workdir it moved to.
    reply([
      toolUse('Bash', {
        command:
          'echo beta > b.txt; mkdir -p .marks; touch .marks/started; case "$PWD" in *moved*) ;; *) [ -e .marks/again ] || { touch .marks/again; sleep 120; } ;; esac',
      }),
    ]),
    reply([text('Done.')]),
  ]);
  const workdir = makeRepo({ '.gitignore': '.marks/\n' });
  const hostA = await harness.startWorkerProcess({ AGENT_HOST_ID: 'host-a' });
  const handle = await harness.start({
    prompt: 'notes',
    workdir,
    host: 'host-a',
    hostLossTimeoutMs: 2_000,
    toolSummaries: false,
  });
  await harness.startWorker({ hostId: 'host-b' });
  // The command runs on host-a, and has marked that it ran once (killed before that mark, host-a
  // would rightly run it again when it is back).
  while (!existsSync(join(workdir, '.marks', 'again'))) await new Promise((resolve) => setTimeout(resolve, 50));
  await killProcess(hostA);
  const waiting = await stateWhere(handle, (state) => state.status === 'waiting_host');
  expect(waiting.host).toBe('host-a');
  // The query can answer from the worker's state before the workflow task that upserts the
  // attribute is completed: the UI's and list's view follows within that task.
  await searchAttributeWhere(handle, (status) => Array.isArray(status) && status[0] === 'waiting_host');
  return { handle, workdir };
}

test('a workdir session whose host is lost waits for it; back, the lost command is not run again', async () => {
  const { handle, workdir } = await lostWorkdirSession();
  const status = await harness.cli(['status', handle.workflowId]);
  expect(status.stdout).toContain(
    `host host-a is lost: the session waits for it to come back, or moves with  durable-agent move ${handle.workflowId} --host <host id>`,
  );

  await harness.startWorkerProcess({ AGENT_HOST_ID: 'host-a' });
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Done.' });
  const state = await handle.query<AgentState>('state');
  expect(state.host).toBe('host-a');
  expect(state.transitions).not.toContain('workspace_moved');
  // The command had started on host-a: like a retry, it reports what the lost run changed.
  const bash = lastToolResults(harness.fake.requests.find((request) => turnOf(request) === 2)!)[0]!;
  expect(toolResultText(bash)).toContain(
    'It was not run again. Since it started, the workspace changed: created b.txt.',
  );
  expect(existsSync(join(workdir, '.marks', 'again'))).toBe(true);
});

test('durable-agent move: a workdir session whose host is lost goes on on another host from its last snapshot', async () => {
  const { handle } = await lostWorkdirSession();
  const elsewhere = join(scratchDir('moved'), 'repo');
  const refused = await harness.cli(['move', handle.workflowId, '--host', 'host-a']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('host-a is the host the session waits for');

  const moved = await harness.cli(['move', handle.workflowId, '--host', 'host-b', '--workdir', elsewhere]);
  expect(moved.stdout).toContain(`Moved ${handle.workflowId} to host-b: the files of turn 1 are in ${elsewhere}`);
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Done.' });
  const state = await handle.query<AgentState>('state');
  expect(state).toMatchObject({ host: 'host-b', workdir: elsewhere });
  expect(state.transitions).toContain('workspace_moved');
  // host-b has the files of turn 1; the command that had started on host-a was not run again there.
  expect(readFileSync(join(elsewhere, 'a.txt'), 'utf8')).toBe('alpha\n');
  expect(existsSync(join(elsewhere, 'b.txt'))).toBe(false);
  const bash = lastToolResults(harness.fake.requests.find((request) => turnOf(request) === 2)!)[0]!;
  expect(toolResultText(bash)).toContain(
    'The session moved to another host, where the files are as they were before the command started',
  );
});
