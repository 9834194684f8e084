/**
 * Sessions of any length: a run hands its state to a fresh run (continue-as-new) at a turn
 * boundary; messages and approvals sent around the boundary are not lost, the workflow id stays,
 * and the result, `watch` and `status` follow the chain of runs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import {
  reply,
  requestOfTurn,
  requestText,
  text,
  toolUse,
  turnOf,
  type RecordedRequest,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();

/** Polls a query or the disk; a step that never comes fails naming itself, not as the test's timeout. */
async function until(what: string, predicate: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await predicate().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`waited 60 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('continue-as-new carries the session: a message queued before the boundary and an approval after it', async () => {
  // Marks inside the repository: the sandboxed command can write nowhere else.
  const workdir = makeRepo({ 'a.txt': 'a\n' });
  const started = join(workdir, 'started');
  const release = join(workdir, 'release');
  const requests: RecordedRequest[] = [];
  const replies = [
    () => reply([toolUse('Read', { file_path: 'a.txt' })]),
    () => reply([toolUse('Bash', { command: `touch ${started}; while [ ! -e ${release} ]; do sleep 0.1; done` })]),
    () => reply([toolUse('Write', { file_path: 'b.txt', content: 'b\n' }, 'toolu_after_boundary')]),
    () => reply([text('All done across runs.')]),
  ];
  // By turn, not by arrival: a call retried on the loaded machine sends its turn again.
  harness.fake.handler = (request) => {
    requests.push(request);
    return (replies[turnOf(request)] ?? (() => reply([text('(end)')])))();
  };
  const handle = await harness.start({
    prompt: 'a long task',
    workdir,
    continueAsNewAfterTurns: 2,
    permissionMode: 'ask',
    allowRules: ['Bash'],
  });
  const firstRunId = handle.firstExecutionRunId;

  await until('the command to start', async () => existsSync(started));
  await handle.signal('userMessage', { text: 'A note sent before the boundary.' });
  await until('the message to be queued', async () => (await handle.query<AgentState>('state')).queuedMessages === 1);
  writeFileSync(release, '');

  // The approval is requested by the second run; the update reaches it through the same id.
  await until(
    'the second run to ask for approval',
    async () =>
      (await harness.client.workflow.getHandle(handle.workflowId).query<AgentState>('state')).pendingApprovals
        .length === 1,
  );
  await harness.client.workflow
    .getHandle(handle.workflowId)
    .executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_after_boundary', decision: 'allow' }] });

  const result = await handle.result(); // follows the chain of runs
  expect(result).toMatchObject({ reason: 'completed', turnCount: 4, finalText: 'All done across runs.' });
  // Usage is summed across runs, not reset: every request's output counted.
  expect(result.usage.outputTokens).toBeGreaterThanOrEqual(new Set(requests.map(turnOf)).size);
  expect(readFileSync(join(workdir, 'b.txt'), 'utf8')).toBe('b\n');
  const [turn2, turn3] = [requestOfTurn(requests, 1)!, requestOfTurn(requests, 2)!];
  expect(requestText(turn3)).toContain('A note sent before the boundary.');
  // The second run rebuilt the same conversation from the store: nothing was lost.
  const withoutCacheMarks = (messages: unknown) =>
    JSON.parse(JSON.stringify(messages).replace(/,"cache_control":\{"type":"ephemeral"\}/g, ''));
  expect(withoutCacheMarks(turn3.body.messages.slice(0, 3))).toEqual(
    withoutCacheMarks(turn2.body.messages.slice(0, 3)),
  );

  const firstRun = await harness.client.workflow.getHandle(handle.workflowId, firstRunId).describe();
  expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
  const latest = harness.client.workflow.getHandle(handle.workflowId);
  expect((await latest.describe()).runId).not.toBe(firstRunId);
  const state = await latest.query<AgentState>('state');
  expect(state.transitions).toEqual(['next_turn', 'next_turn', 'next_turn']);
  // Transcript indexes go on across runs: the second run starts where the first stopped.
  const page = await latest.query(transcriptQuery, { fromIndex: 0, limit: 1000 });
  expect(page.entries[0]).toMatchObject({ type: 'transition', transition: 'continued_as_new', detail: 'run 2' });
  expect(page.total).toBeGreaterThan(page.entries.length);
});

test('interactive turns continue as new too, and an `end` sent before the boundary is carried', async () => {
  const requests: RecordedRequest[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  harness.fake.handler = async (request) => {
    requests.push(request);
    if (turnOf(request) === 0) await released; // the first answer waits until the message and `end` are in
    return reply([text(`answer ${turnOf(request) + 1}`)]);
  };
  const handle = await harness.start({
    prompt: 'chat',
    workdir: makeRepo({}),
    interactive: true,
    continueAsNewAfterTurns: 1,
  });
  await until('the first model request', async () => requests.length >= 1);
  await handle.signal('userMessage', { text: 'one more thing' });
  await handle.signal('end');
  await until('the message to be queued', async () => (await handle.query<AgentState>('state')).queuedMessages === 1);
  release();

  // Turn 1 ends; the queued message makes turn 2, in a new run that knows `end` was sent.
  const result = await handle.result();
  expect(result).toMatchObject({ reason: 'completed', turnCount: 2, finalText: 'answer 2' });
  expect(requestText(requestOfTurn(requests, 1)!)).toContain('one more thing');
  const firstRun = await harness.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
  expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
});

test('External Storage: a payload over 256 KB (a huge Write in a model reply) is stored by reference, not in history', async () => {
  const big = `${'x'.repeat(99)}\n`.repeat(4000); // 400 KB, inline in the reply's tool_use input
  const workdir = makeRepo({});
  harness.fake.handler = (request) =>
    request.body.messages.length === 1
      ? reply([toolUse('Write', { file_path: 'big.txt', content: big })])
      : reply([text('Wrote it.')]);
  const handle = await harness.start({ prompt: 'write a big file', workdir });
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Wrote it.' });
  expect(readFileSync(join(workdir, 'big.txt'), 'utf8')).toBe(big);
  const history = await handle.fetchHistory();
  const sizes = (history.events ?? []).map((event) => JSON.stringify(event).length);
  // The reply (and the tool call's input) travelled by reference: no event holds the 400 KB.
  expect(Math.max(...sizes)).toBeLessThan(50_000);
  expect((await handle.describe()).historySize).toBeLessThan(100_000);
});
