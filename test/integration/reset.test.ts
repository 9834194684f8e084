/**
 * `temporal workflow reset` of a session, on a real dev server and worker: the reset run puts the
 * files back to the snapshot its history knows before its first tool runs, so what the turns after
 * the reset point did happens once, an Edit of a file read before it works, and the result counts
 * the session's changes from its true start — reset by event id (a workflow task mid-session), to
 * the first workflow task (the `temporal` CLI, as operators run it) and to the last.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import Long from 'long';
import { resolveTemporalCli } from '../../src/dev-server/temporal-cli';
import type { AgentResult, AgentState, TranscriptEntry } from '../../src/shared/contract';
import type { FileChangeStat } from '../../src/shared/workspace';
import { DROPPED_WORKFLOW_SPANS } from '../../src/telemetry/tracing';
import { endSignal, transcriptQuery } from '../../src/workflows/definitions';
import { asItsRunSawIt } from '../support/history';
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
import { fileHarness, Harness, killProcess, makeRepo, temporalAddress } from '../support/harness';

jest.setTimeout(240_000);

const harness = fileHarness();

/** The errors among the tool results a request carries (each call of the turn before it). */
const errorsOf = (request: RecordedRequest) =>
  lastToolResults(request)
    .filter((block) => block.is_error)
    .map(toolResultText);

/** Replies by turn, keeping every tool error the requests report, by the turn whose calls they answer. */
function scripted(replies: FakeReply[]): { handler: (request: RecordedRequest) => FakeReply; errors: string[][] } {
  const errors: string[][] = [];
  const answer = byTurn(replies);
  return {
    errors,
    handler: (request) => {
      const answered = request.body.messages.filter((message) => message.role === 'assistant').length;
      if (answered > 0) errors[answered] = [...(errors[answered] ?? []), ...errorsOf(request)];
      return answer(request) as FakeReply;
    },
  };
}

/** The event id of the workflow task that scheduled the run's `n`-th model call (1-based): a reset there re-runs it. */
async function taskBeforeModelCall(handle: WorkflowHandle, n: number): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  const calls = events.filter(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
  );
  return Number(calls[n - 1]!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId);
}

/** `workflowService.resetWorkflowExecution` to the workflow task completed at `eventId`: the new run's id. */
async function resetToEvent(handle: WorkflowHandle, runId: string, eventId: number): Promise<string> {
  const response = await harness.client.workflowService.resetWorkflowExecution({
    namespace: 'default',
    workflowExecution: { workflowId: handle.workflowId, runId },
    reason: 'test: reset mid-session',
    workflowTaskFinishEventId: Long.fromNumber(eventId),
    requestId: randomUUID(),
  });
  return (response as { runId: string }).runId;
}

/** `temporal workflow reset --type <type>`, as an operator runs it: the new run's id (the workflow's latest). */
async function resetWithCli(
  workflowId: string,
  type: 'FirstWorkflowTask' | 'LastWorkflowTask',
  ...options: string[]
): Promise<string> {
  const cli = await resolveTemporalCli();
  await promisify(execFile)(cli!.path, [
    'workflow',
    'reset',
    '--address',
    temporalAddress(),
    '--workflow-id',
    workflowId,
    '--type',
    type,
    '--reason',
    `test: ${type}`,
    '--yes',
    ...options,
  ]);
  return (await harness.client.workflow.getHandle(workflowId).describe()).runId;
}

const changes = (result: AgentResult) =>
  (result.filesChanged ?? []).map(({ path, change }: FileChangeStat) => `${change} ${path}`).sort();

/** The reset run's history replays against the workflow code as it is (the put-back's marker where it ran), as its worker knows it. */
async function expectReplays(handle: WorkflowHandle, runId: string): Promise<void> {
  const history = asItsRunSawIt(await handle.fetchHistory());
  expect(history.events![0]!.workflowExecutionStartedEventAttributes!.originalExecutionRunId).toBe(runId);
  await expect(
    Worker.runReplayHistory(
      {
        workflowBundle: { codePath: process.env.AGENT_WORKFLOW_BUNDLE! },
        sinks: DROPPED_WORKFLOW_SPANS,
        replayName: 'reset run',
      },
      history,
    ),
  ).resolves.toBeUndefined();
}

test('a reset to the workflow task after turn 3 puts the files back: each command once, a later Edit works, filesChanged is right', async () => {
  const workdir = makeRepo({ 'notes.txt': 'one\n' });
  const echo = (n: number) => toolUse('Bash', { command: `echo ${n} >> log.txt` });
  const edit = (from: string, to: string) =>
    toolUse('Edit', { file_path: 'notes.txt', old_string: from, new_string: to });
  const script = scripted([
    reply([toolUse('Read', { file_path: 'notes.txt' }), echo(1)]),
    reply([echo(2)]),
    reply([echo(3), toolUse('Write', { file_path: 'made.txt', content: 'turn 3\n' })]),
    reply([echo(4), edit('one', 'two')]),
    reply([echo(5), edit('two', 'three'), toolUse('Bash', { command: 'rm made.txt' })]),
    reply([text('Done.')]),
  ]);
  harness.fake.handler = script.handler;
  const handle = await harness.start({ prompt: 'Count to five', workdir });
  const first = (await handle.result()) as AgentResult;
  expect(first.reason).toBe('completed');
  expect(readFileSync(join(workdir, 'log.txt'), 'utf8')).toBe('1\n2\n3\n4\n5\n');

  script.errors.length = 0;
  const resetRun = await resetToEvent(handle, handle.firstExecutionRunId, await taskBeforeModelCall(handle, 4));
  const reset = harness.client.workflow.getHandle(handle.workflowId, resetRun);
  const result = (await reset.result()) as AgentResult;

  expect(result.reason).toBe('completed');
  expect(readFileSync(join(workdir, 'log.txt'), 'utf8')).toBe('1\n2\n3\n4\n5\n');
  expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('three\n');
  expect(existsSync(join(workdir, 'made.txt'))).toBe(false);
  // Turn 4's and turn 5's calls (answered in the requests of turns 5 and 6), Edits of a file read at turn 1 included.
  expect(script.errors.flat()).toEqual([]);
  expect(changes(result)).toEqual(['added log.txt', 'modified notes.txt']);
  const transcript = (await reset.query(transcriptQuery, {})) as { entries: TranscriptEntry[] };
  expect(transcript.entries.filter((entry) => entry.type === 'reset')).toEqual([
    expect.objectContaining({ snapshotTurn: 3, filesRestored: 3 }),
  ]);
  await expectReplays(reset, resetRun);
});

test('a reset to the first workflow task (temporal workflow reset --type FirstWorkflowTask) starts from the true start', async () => {
  const workdir = makeRepo({ 'notes.txt': 'one\n' });
  const script = scripted([
    reply([
      toolUse('Write', { file_path: 'created.txt', content: 'made once\n' }),
      toolUse('Bash', { command: 'echo ran >> log.txt' }),
    ]),
    reply([text('Done.')]),
  ]);
  harness.fake.handler = script.handler;
  const handle = await harness.start({ prompt: 'Make a file', workdir });
  expect(changes((await handle.result()) as AgentResult)).toEqual(['added created.txt', 'added log.txt']);

  const resetRun = await resetWithCli(handle.workflowId, 'FirstWorkflowTask');
  const reset = harness.client.workflow.getHandle(handle.workflowId, resetRun);
  const result = (await reset.result()) as AgentResult;

  expect(result.reason).toBe('completed');
  expect(readFileSync(join(workdir, 'log.txt'), 'utf8')).toBe('ran\n');
  expect(readFileSync(join(workdir, 'created.txt'), 'utf8')).toBe('made once\n');
  expect(script.errors.flat()).toEqual([]);
  expect(changes(result)).toEqual(['added created.txt', 'added log.txt']);
  await expectReplays(reset, resetRun);
});

test('a reset to the last workflow task finds the files as they are: nothing is put back, the result stands', async () => {
  const workdir = makeRepo({ 'notes.txt': 'one\n' });
  harness.fake.handler = scripted([
    reply([toolUse('Bash', { command: 'echo ran >> log.txt' })]),
    reply([text('Done.')]),
  ]).handler;
  const handle = await harness.start({ prompt: 'Append a line', workdir });
  await handle.result();

  const reset = harness.client.workflow.getHandle(
    handle.workflowId,
    await resetWithCli(handle.workflowId, 'LastWorkflowTask'),
  );
  const result = (await reset.result()) as AgentResult;

  expect(result.reason).toBe('completed');
  expect(readFileSync(join(workdir, 'log.txt'), 'utf8')).toBe('ran\n');
  expect(changes(result)).toEqual(['added log.txt']);
});

/**
 * `durable-agent rewind` sent while a command runs, accepted, and the worker killed before it was
 * carried out; then `temporal workflow reset` (with `resetOptions`), and a worker again.
 */
async function rewindThenReset(resetOptions: string[]) {
  const own = await Harness.start();
  const stop = () => own.stop();
  own.fake.handler = byTurn([
    reply([toolUse('Bash', { command: 'echo started > started.txt; sleep 8' })]),
    reply([text('Stopped.')]),
    reply([text('Back at the start.')]),
  ]);
  const workdir = makeRepo({ 'a.txt': 'a\n' });
  const first = await own.startWorkerProcess();
  const handle = await own.start({ prompt: 'Run it', workdir, interactive: true, toolSummaries: false });
  const marker = join(workdir, 'started.txt');
  while (!existsSync(marker) || readFileSync(marker, 'utf8') === '')
    await new Promise((resolve) => setTimeout(resolve, 50));
  const rewinding = own.cli(['rewind', handle.workflowId, '--turn', '0']);
  // Accepted (the command is being stopped for it, which takes a heartbeat), and the worker killed before the rewind is carried out.
  const accepted = async () =>
    ((await handle.fetchHistory()).events ?? []).some((event) => event.workflowExecutionUpdateAcceptedEventAttributes);
  while (!(await accepted())) await new Promise((resolve) => setTimeout(resolve, 20));
  await killProcess(first);
  const resetRun = await resetWithCli(handle.workflowId, 'LastWorkflowTask', ...resetOptions);
  await own.startWorkerProcess();
  const rewind = await rewinding;
  const reset = own.client.workflow.getHandle(handle.workflowId, resetRun);
  await stateWhere(reset, (state) => state.status === 'waiting_input');
  const { transitions } = await reset.query<AgentState>('state');
  await reset.signal(endSignal);
  const result = (await reset.result()) as AgentResult;
  return { rewind, transitions, result, handle, resetRun, stop };
}

async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<void> {
  while (!predicate(await handle.query<AgentState>('state'))) await new Promise((resolve) => setTimeout(resolve, 100));
}

test('a rewind accepted just before a reset is carried out by the run the reset made (Temporal applies it again), and `durable-agent rewind` answers with it', async () => {
  const { rewind, transitions, result, handle, stop } = await rewindThenReset([]);
  try {
    expect(rewind).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(
        `${handle.workflowId} was reset meanwhile; the run the reset made carried the rewind out.\nRewound ${handle.workflowId} to turn 0`,
      ),
    });
    expect(transitions).toContain('rewind');
    expect(result.reason).toBe('completed');
  } finally {
    await stop();
  }
});

test('a reset that does not apply updates again (--reapply-exclude Update): `durable-agent rewind` says nothing was rewound, and the session goes on unrewound', async () => {
  const { rewind, transitions, result, handle, resetRun, stop } = await rewindThenReset([
    '--reapply-exclude',
    'Update',
  ]);
  try {
    expect(rewind.code).toBe(1);
    expect(rewind.stderr).toContain(
      `${handle.workflowId} was reset (its run ${handle.firstExecutionRunId} ended, ${resetRun} goes on) before the rewind was carried out, and the reset did not apply it to the new run: nothing was rewound`,
    );
    expect(transitions).not.toContain('rewind');
    expect(result).toMatchObject({ reason: 'completed', finalText: 'Stopped.' });
  } finally {
    await stop();
  }
});
