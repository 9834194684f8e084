import { interruptSession } from '../../../../src/cli/session-steering';
import { captured, cli, fakeClient, withUsage } from '../cli-output';

test('interrupt needs a workflow id (exit 2)', async () => {
  expect(await cli(['interrupt'])).toEqual({
    code: 2,
    stdout: '',
    stderr: withUsage('usage: durable-agent interrupt <workflow-id>'),
  });
});

test.each([
  ['model', 'Interrupted the model call of agent-1.\n'],
  ['tools', 'Interrupted the tools of agent-1.\n'],
  ['nothing', 'Nothing to interrupt: agent-1 is not running a model call or tools.\n'],
])('what the interrupt update stopped (%s) is the line printed', async (stopped, line) => {
  const { client, calls } = fakeClient({ executeUpdate: { stopped } });
  const { result, stdout } = await captured(() => interruptSession(client, 'agent-1'));
  expect(result).toBe(0);
  expect(stdout).toBe(line);
  expect(calls).toEqual([{ method: 'executeUpdate', workflowId: 'agent-1', args: ['interrupt', { args: [{}] }] }]);
});
