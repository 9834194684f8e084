/**
 * Two workers as two hosts (AGENT_HOST_ID host-a and host-b) on one task queue and one store:
 * every activity that touches a session's workspace runs on the host that prepared it (its host
 * queue `<queue>@<host>`), while model calls go to the shared queue, which any host serves.
 */
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { reply, text, toolUse, turnOf } from '../support/fake-anthropic';
import { activityRuns } from '../support/history';
import { Harness, makeRepo } from '../support/harness';

jest.setTimeout(180_000);

let harness: Harness;
const WORKSPACE_ACTIVITIES = [
  'prepareSession',
  'runTool',
  'runStopHooks',
  'snapshotWorkspace',
  'checkWorkspace',
  'restoreWorkspace',
  'materializeSnapshot',
  'closeSession',
];
const TURNS = 12;

afterEach(async () => {
  await harness?.stop();
});

function editingSession() {
  // Scripted by the conversation's turn, not by requests counted: a retried model call (a loaded
  // machine) asks again for the same turn and must get the same reply.
  harness.fake.handler = (request) => {
    const turn = turnOf(request) + 1;
    if (turn === 1) return reply([toolUse('Read', { file_path: 'a.txt' })]);
    if (turn < TURNS)
      return reply([
        toolUse(
          turn % 2 ? 'Bash' : 'Edit',
          turn % 2
            ? { command: `echo ${turn} >> log.txt` }
            : { file_path: 'a.txt', old_string: `${turn - 2}\n`, new_string: `${turn}\n` },
        ),
      ]);
    return reply([text('Done.')]);
  };
}

test('a session pinned to host-a: every workspace activity ran on host-a, its model calls on host-b, where its workflow runs', async () => {
  harness = await Harness.start();
  // Only host-b polls when the session starts: its workflow runs there, and model calls with it.
  await harness.startWorker({ hostId: 'host-b' });
  editingSession();
  const handle = await harness.start({
    prompt: 'edit',
    workdir: makeRepo({ 'a.txt': '0\n' }),
    toolSummaries: false,
    host: 'host-a',
  });
  // prepareSession waits on host-a's queue until host-a comes.
  while (
    !(await handle.describe()).raw.pendingActivities?.some(
      (activity) => activity.activityType?.name === 'prepareSession',
    )
  )
    await new Promise((resolve) => setTimeout(resolve, 50));
  await harness.startWorker({ hostId: 'host-a' });
  expect(await handle.result()).toMatchObject<Partial<AgentResult>>({ reason: 'completed' });

  const state = await handle.query<AgentState>('state');
  expect(state.host).toBe('host-a');
  expect((await handle.describe()).searchAttributes.AgentHost).toEqual(['host-a']);
  const runs = await activityRuns(handle);
  const workspace = runs.filter((run) => WORKSPACE_ACTIVITIES.includes(run.type));
  expect(workspace.length).toBeGreaterThan(TURNS);
  for (const run of workspace)
    expect(run).toEqual({ type: run.type, queue: `${harness.taskQueue}@host-a`, host: 'host-a' });
  const models = runs.filter((run) => run.type === 'callModel');
  expect(models).toHaveLength(TURNS);
  for (const run of models) expect(run.queue).toBe(harness.taskQueue);
  expect(models.some((run) => run.host === 'host-b')).toBe(true);
});

test('a session without `host` lives on the host that prepared it: every workspace activity ran there', async () => {
  harness = await Harness.start();
  await harness.startWorker({ hostId: 'host-a' });
  await harness.startWorker({ hostId: 'host-b' });
  editingSession();
  const handle = await harness.start({ prompt: 'edit', workdir: makeRepo({ 'a.txt': '0\n' }), toolSummaries: false });
  expect(await handle.result()).toMatchObject<Partial<AgentResult>>({ reason: 'completed' });
  const host = (await handle.query<AgentState>('state')).host!;
  expect(['host-a', 'host-b']).toContain(host);
  const runs = (await activityRuns(handle)).filter(
    (run) => WORKSPACE_ACTIVITIES.includes(run.type) && run.type !== 'prepareSession',
  );
  expect(runs.length).toBeGreaterThan(TURNS);
  for (const run of runs) expect(run).toEqual({ type: run.type, queue: `${harness.taskQueue}@${host}`, host });
});

test('a host id that cannot name a queue is refused before the session starts', async () => {
  harness = await Harness.start();
  await harness.startWorker();
  const failure = await harness
    .run({ prompt: 'hi', workdir: makeRepo({}), host: 'host a' })
    .catch((error: Error & { cause?: Error }) => error.cause?.message ?? error.message);
  expect(failure).toContain("host: must be a worker's AGENT_HOST_ID");
});
