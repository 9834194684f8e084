/**
 * One session per workdir, on a real dev server and worker: while a session holds its workdir's
 * lease, a second one started there with `onBusyWorkdir: "fail"` fails naming the first, and one
 * with `"wait"` waits (status `waiting_workdir`) and runs once the first has closed. A terminated
 * session, which never released its lease, frees the workdir at once. A sub-agent works in its
 * parent's workdir without waiting for its parent's lease.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { endSignal, transcriptQuery } from '../../src/workflows/definitions';
import { byTurn, lastToolResults, reply, requestText, text, toolResultText, toolUse } from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(180_000);

const harness = fileHarness();

const state = (handle: WorkflowHandle) => handle.query<AgentState>('state');

async function until(handle: WorkflowHandle, status: AgentState['status']): Promise<void> {
  while ((await state(handle)).status !== status) await new Promise((resolve) => setTimeout(resolve, 100));
}

test('a second session on a leased workdir fails naming the holder, or waits and runs after it closes', async () => {
  harness.fake.handler = (request) =>
    requestText(request).includes('second')
      ? reply([text('Second done.')])
      : byTurn([reply([toolUse('Bash', { command: 'echo first > first.txt' })]), reply([text('First done.')])])(
          request,
        );
  const workdir = makeRepo({ 'README.md': '# app\n' });
  const first = await harness.start({ prompt: 'first task', workdir, interactive: true, toolSummaries: false });
  await until(first, 'waiting_input');

  const failing = await harness.start({ prompt: 'second task', workdir, onBusyWorkdir: 'fail', toolSummaries: false });
  await expect(failing.result()).rejects.toMatchObject({
    cause: { type: 'WorkdirBusy', message: expect.stringContaining(`in use by session ${first.workflowId}`) },
  });

  const waiting = await harness.start({ prompt: 'second task', workdir, onBusyWorkdir: 'wait', toolSummaries: false });
  await until(waiting, 'waiting_workdir');
  const { entries } = await waiting.query(transcriptQuery, { fromIndex: 0 });
  expect(entries).toContainEqual(
    expect.objectContaining({
      type: 'workdir_lease',
      outcome: 'waiting',
      detail: expect.stringContaining(first.workflowId),
    }),
  );
  // Still waiting while the first one runs: no model call of the second was made.
  expect(harness.fake.requests.filter((request) => requestText(request).includes('second'))).toEqual([]);

  await first.signal(endSignal);
  expect(await first.result()).toMatchObject({ reason: 'completed', finalText: 'First done.' });
  expect((await waiting.result()) as AgentResult).toMatchObject({ reason: 'completed', finalText: 'Second done.' });
  // The lease was taken by prepareSession and released by closeSession: no activity of its own, nothing renewing it.
  const { events } = await first.fetchHistory();
  const activities = events!
    .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)
    .filter((name) => name !== undefined);
  expect(activities.filter((name) => /WorkdirLease/.test(name!))).toEqual([]);
  expect(activities.at(-1)).toBe('closeSession');
});

test('a terminated session never released its lease: the next session finds it ended and takes the workdir at once', async () => {
  harness.fake.handler = (request) =>
    requestText(request).includes('second') ? reply([text('Second done.')]) : reply([text('First waits.')]);
  const workdir = makeRepo({ 'README.md': '# app\n' });
  const first = await harness.start({ prompt: 'first task', workdir, interactive: true, toolSummaries: false });
  await until(first, 'waiting_input');
  await first.terminate('an operator stopped it');
  // Not after an expiry: `fail` would fail while the lease looked held.
  expect(
    await harness.run({ prompt: 'second task', workdir, onBusyWorkdir: 'fail', toolSummaries: false }),
  ).toMatchObject({ reason: 'completed', finalText: 'Second done.' });
});

test('a session that continues as new keeps its lease', async () => {
  harness.fake.handler = (request) =>
    requestText(request).includes('second')
      ? reply([text('Second done.')])
      : byTurn([
          reply([toolUse('Bash', { command: 'echo 1 > one.txt' })]),
          reply([toolUse('Bash', { command: 'echo 2 > two.txt' })]),
          reply([text('Long done.')]),
        ])(request);
  const workdir = makeRepo({ 'README.md': '# app\n' });
  const long = await harness.start({
    prompt: 'long task',
    workdir,
    interactive: true,
    continueAsNewAfterTurns: 1,
    toolSummaries: false,
  });
  await until(long, 'waiting_input');
  const { runId } = await long.describe();
  expect(runId).not.toBe(long.firstExecutionRunId);
  const failing = await harness.start({ prompt: 'second task', workdir, onBusyWorkdir: 'fail', toolSummaries: false });
  await expect(failing.result()).rejects.toMatchObject({
    cause: { type: 'WorkdirBusy', message: expect.stringContaining(long.workflowId) },
  });
  await long.signal(endSignal);
  await long.result();
  expect(
    await harness.run({ prompt: 'second task', workdir, onBusyWorkdir: 'fail', toolSummaries: false }),
  ).toMatchObject({ reason: 'completed' });
});

test("a sub-agent works in its parent's workdir without waiting for its parent's lease", async () => {
  harness.fake.handler = (request) => {
    if (requestText(request).includes('Read the child file'))
      return byTurn([reply([toolUse('Read', { file_path: 'README.md' })]), reply([text('Child done.')])])(request);
    return byTurn([
      reply([toolUse('Task', { description: 'child', prompt: 'Read the child file' }, 'toolu_child')]),
      reply([text('Parent done.')]),
    ])(request);
  };
  const workdir = makeRepo({ 'README.md': '# app\n' });
  const result = await harness.run({ prompt: 'delegate', workdir, onBusyWorkdir: 'fail', toolSummaries: false });
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Parent done.' });
  // Had the child waited for the lease its parent holds, the parent would never have had its answer.
  const parentLast = harness.fake.requests.filter((request) => requestText(request).includes('delegate')).at(-1)!;
  expect(toolResultText(lastToolResults(parentLast)[0]!)).toContain('Child done.');
});
