import { endSession } from '../../../../src/cli/session-steering';
import { endSignal } from '../../../../src/workflows/definitions';
import { captured, cli, fakeClient, withUsage } from '../cli-output';

test('end needs a workflow id (exit 2)', async () => {
  expect(await cli(['end'])).toEqual({
    code: 2,
    stdout: '',
    stderr: withUsage('usage: durable-agent end <workflow-id>'),
  });
});

test('end signals the session and says when it closes', async () => {
  const { client, calls } = fakeClient();
  const { result, stdout } = await captured(() => endSession(client, 'agent-1'));
  expect(result).toBe(0);
  expect(stdout).toBe(
    'Asked agent-1 to end: an interactive session closes, with its result, once it waits for input.\n',
  );
  expect(calls).toEqual([{ method: 'signal', workflowId: 'agent-1', args: [endSignal] }]);
});

test('to a session that never existed, the error says so', async () => {
  const { WorkflowNotFoundError } = await import('@temporalio/common');
  const { client } = fakeClient({
    signal: new Error('not found'),
    describe: new WorkflowNotFoundError('no such workflow', 'agent-9', undefined),
  });
  await expect(endSession(client, 'agent-9')).rejects.toThrow(
    'there is no session agent-9 (durable-agent list shows the sessions)',
  );
});
