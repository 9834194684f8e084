/**
 * The transcript is stored per step (shared/transcript-chain.ts): no activity input grows with
 * the session, and a client with no worker reads the whole session back, every run of it.
 */
import { storedSession } from '../../src/cli/stored-session';
import type { AgentResult } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import { type FakeHandler, reply, text, toolUse } from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';
import { activityInputSizes } from '../support/history';

jest.setTimeout(900_000);

const harness = fileHarness();

/** A session of `turns` turns, each one model call and one Read. */
function readEveryTurn(turns: number): FakeHandler {
  let requests = 0;
  return () => (++requests < turns ? reply([toolUse('Read', { file_path: 'a.txt' })]) : reply([text('done')]));
}

async function session(turns: number, input: Record<string, unknown> = {}) {
  harness.fake.handler = readEveryTurn(turns);
  const handle = await harness.start({
    prompt: 'read a.txt again and again',
    workdir: makeRepo({ 'a.txt': 'a\n' }),
    toolSummaries: false,
    ...input,
  });
  const result = (await handle.result()) as AgentResult;
  return {
    handle,
    result,
    inputs: await activityInputSizes(harness.client, handle.workflowId, handle.firstExecutionRunId),
  };
}

test('after 300 turns no activity input is over 32 KB, and closing the session costs what it did after 30', async () => {
  const short = await session(30);
  const long = await session(300);
  expect(long.result).toMatchObject({ reason: 'completed', turnCount: 300 });
  const largest = Math.max(...long.inputs.map((input) => input.bytes));
  expect(largest).toBeLessThan(32 * 1024);
  const closing = (inputs: { type: string; bytes: number }[]) =>
    inputs.filter((input) => input.type === 'closeSession').map((input) => input.bytes);
  expect(closing(short.inputs)).toHaveLength(1);
  expect(closing(long.inputs)).toHaveLength(1);
  // The same last entries (an end, a transition or two), a reference before them: no more bytes for ten times the turns.
  expect(closing(long.inputs)[0]!).toBeLessThan(closing(short.inputs)[0]! + 64);
});

test('a session closed after continuing as new reads back whole, every run, with no worker asked', async () => {
  const { handle, result } = await session(7, { continueAsNewAfterTurns: 2 });
  expect(result.transcriptRef).toMatch(/^sha256:/);
  const stored = await storedSession(handle, harness.store);
  const page = await harness.client.workflow
    .getHandle(handle.workflowId)
    .query(transcriptQuery, { fromIndex: 0, limit: 10_000 });
  // The last run holds only its own entries; the store holds every run's, with the same indexes.
  expect(page.total).toBeGreaterThan(page.entries.length);
  expect(stored!.transcript).toHaveLength(page.total);
  expect(stored!.transcript.slice(page.total - page.entries.length)).toEqual(page.entries);
  expect(stored!.transcript[0]).toMatchObject({ type: 'user', text: 'read a.txt again and again' });
  expect(
    stored!.transcript.filter((entry) => entry.type === 'transition' && entry.transition === 'continued_as_new'),
  ).toHaveLength(3);
  expect(stored!.snapshots.map((snapshot) => snapshot.turn)).toEqual(result.turnCount > 0 ? [0] : []);
});
