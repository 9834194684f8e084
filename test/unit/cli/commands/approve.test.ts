import { parseApproveArguments } from '../../../../src/cli/commands/approve';
import { approveCall } from '../../../../src/cli/session-steering';
import { approveToolUpdate } from '../../../../src/workflows/definitions';
import { captured, cli, fakeClient, withUsage } from '../cli-output';

test('approve needs a workflow id and a tool use id (exit 2)', async () => {
  expect(await cli(['approve', 'id'])).toEqual({
    code: 2,
    stdout: '',
    stderr: withUsage(
      'usage: durable-agent approve <workflow-id> <tool-use-id> [--deny] [--feedback "…"] [--mode <mode>]',
    ),
  });
});

test('allow by default; --deny and --feedback go into the decision', () => {
  expect(parseApproveArguments(['agent-1', 'toolu_1'])).toEqual({
    workflowId: 'agent-1',
    approval: { toolUseId: 'toolu_1', decision: 'allow' },
  });
  expect(parseApproveArguments(['agent-1', 'toolu_1', '--deny', '--feedback', 'not that file'])).toEqual({
    workflowId: 'agent-1',
    approval: { toolUseId: 'toolu_1', decision: 'deny', feedback: 'not that file' },
  });
});

test('--mode names the mode an approved plan goes on in; plan itself or an unknown mode is a usage error', async () => {
  expect(parseApproveArguments(['agent-1', 'toolu_1', '--mode', 'acceptEdits'])).toEqual({
    workflowId: 'agent-1',
    approval: { toolUseId: 'toolu_1', decision: 'allow', mode: 'acceptEdits' },
  });
  const wrong = await cli(['approve', 'id', 'toolu_1', '--mode', 'plan']);
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain('--mode takes one of default, acceptEdits, bypassPermissions, dontAsk');
});

test('an unknown option fails with its message only (exit 1), as it always has', async () => {
  const result = await cli(['approve', 'id', 'toolu_1', '--bogus']);
  expect(result.code).toBe(1);
  expect(result.stderr).not.toContain('Usage:');
});

test('the decision goes to the approveTool update, and the line says which', async () => {
  const { client, calls } = fakeClient({ executeUpdate: { toolUseId: 'toolu_1', decision: 'deny' } });
  const approval = { toolUseId: 'toolu_1', decision: 'deny' as const };
  const { result, stdout } = await captured(() => approveCall(client, 'agent-1', approval));
  expect(result).toBe(0);
  expect(stdout).toBe('Denied toolu_1.\n');
  expect(calls).toEqual([
    { method: 'executeUpdate', workflowId: 'agent-1', args: [approveToolUpdate, { args: [approval] }] },
  ]);
});

test("a refused update reads as the workflow's message, not the SDK's wrapper", async () => {
  const refusal = Object.assign(new Error('Update failed'), { cause: new Error('no call toolu_2 waits for approval') });
  const { client } = fakeClient({ executeUpdate: refusal, describe: { status: { name: 'RUNNING' } } });
  await expect(approveCall(client, 'agent-1', { toolUseId: 'toolu_2', decision: 'allow' })).rejects.toThrow(
    /^no call toolu_2 waits for approval$/,
  );
});
