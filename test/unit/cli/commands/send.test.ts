import { sendMessage } from '../../../../src/cli/session-steering';
import { userMessageSignal } from '../../../../src/workflows/definitions';
import { captured, cli, fakeClient, withUsage } from '../cli-output';

test('send needs a workflow id and text (exit 2)', async () => {
  expect(await cli(['send', 'id'])).toEqual({
    code: 2,
    stdout: '',
    stderr: withUsage('usage: durable-agent send <workflow-id> "<text>"'),
  });
});

test('the words become one message, signalled to the session', async () => {
  const { client, calls } = fakeClient();
  const { result, stdout } = await captured(() => sendMessage(client, 'agent-1', 'one more thing'));
  expect(result).toBe(0);
  expect(stdout).toBe('Queued for the next turn of agent-1.\n');
  expect(calls).toEqual([
    { method: 'signal', workflowId: 'agent-1', args: [userMessageSignal, { text: 'one more thing' }] },
  ]);
});

test('to a finished session, the error says how it finished', async () => {
  const { client } = fakeClient({
    signal: new Error('workflow execution already completed'),
    describe: { status: { name: 'COMPLETED' }, closeTime: new Date('2026-01-02T03:04:05Z') },
  });
  await expect(sendMessage(client, 'agent-1', 'hello')).rejects.toThrow(
    /^agent-1 has finished: it completed at 2026-01-02T03:04:05\.000Z, so it takes no more messages or commands\./,
  );
});
