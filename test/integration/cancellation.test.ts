/**
 * Cancelling the workflow (`temporal workflow cancel`, the UI's Cancel) ends the session like an
 * interrupt: with a result, not as CANCELED, and with every tool_use answered.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import { type FakeReply, reply, text, toolUse } from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();

async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<void> {
  for (;;) {
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state && predicate(state)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('cancelled while a command runs: aborted_tools, the command killed, its tool_use answered', async () => {
  const workdir = makeRepo({});
  harness.fake.handler = () => reply([toolUse('Bash', { command: 'sleep 30 && touch FINISHED' }, 'toolu_sleep')]);
  const handle = await harness.start({ prompt: 'wait', workdir });
  await stateWhere(handle, (state) => state.status === 'running_tools');
  await handle.cancel();

  expect(await handle.result()).toMatchObject({ reason: 'aborted_tools', error: 'Cancelled while tools were running' });
  expect((await handle.describe()).status.name).toBe('COMPLETED');
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 1000 });
  expect(entries).toContainEqual(
    expect.objectContaining({ type: 'tool_result', toolUseId: 'toolu_sleep', isError: true }),
  );
  expect(entries[entries.length - 1]).toMatchObject({ type: 'end', reason: 'aborted_tools' });
  expect(existsSync(join(workdir, 'FINISHED'))).toBe(false);
});

test('cancelled while the model responds: aborted_streaming, with a result', async () => {
  let release!: (reply: FakeReply) => void;
  harness.fake.handler = () => ({ kind: 'hold', release: new Promise<FakeReply>((resolve) => (release = resolve)) });
  const before = harness.fake.requests.length;
  const handle = await harness.start({ prompt: 'think', workdir: makeRepo({}) });
  await harness.fake.waitForRequests(before + 1);
  await handle.cancel();
  expect(await handle.result()).toMatchObject({
    reason: 'aborted_streaming',
    error: 'Cancelled while the model was responding',
  });
  release(reply([text('too late')]));
});

test('cancelled while an interactive session waits for a message: it closes with its last answer', async () => {
  harness.fake.handler = () => reply([text('Hello. What next?')]);
  const handle = await harness.start({ prompt: 'greet', workdir: makeRepo({}), interactive: true });
  await stateWhere(handle, (state) => state.status === 'waiting_input');
  await handle.cancel();
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Hello. What next?' });
});
