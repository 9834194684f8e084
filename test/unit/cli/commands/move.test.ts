import { parseMoveArguments } from '../../../../src/cli/commands/move';
import { moveSession } from '../../../../src/cli/session-steering';
import { moveUpdate } from '../../../../src/workflows/definitions';
import { captured, cli, fakeClient, withUsage } from '../cli-output';

test('the host, and the workdir on it when given', () => {
  expect(parseMoveArguments(['agent-1', '--host', 'b'])).toEqual({ workflowId: 'agent-1', destination: { host: 'b' } });
  expect(parseMoveArguments(['agent-1', '--host', 'b', '--workdir', '/srv/x'])).toEqual({
    workflowId: 'agent-1',
    destination: { host: 'b', workdir: '/srv/x' },
  });
});

test.each([
  [['agent-1'], 'usage: durable-agent move <workflow-id> --host <host id> [--workdir <dir on that host>]'],
  [['--host', 'b'], 'usage: durable-agent move <workflow-id> --host <host id> [--workdir <dir on that host>]'],
  [['agent-1', '--host', 'b', '--workdir', 'relative'], '--workdir must be an absolute path on the new host'],
])('move %j is a usage error (exit 2)', async (args, message) => {
  expect(await cli(['move', ...args])).toEqual({ code: 2, stdout: '', stderr: withUsage(message) });
});

test('the move update, and where the session goes on', async () => {
  const { client, calls } = fakeClient({ executeUpdate: { host: 'b', turn: 4, workdir: '/srv/x' } });
  const { result, stdout } = await captured(() => moveSession(client, 'agent-1', { host: 'b', workdir: '/srv/x' }));
  expect(result).toBe(0);
  expect(stdout).toBe('Moved agent-1 to b: the files of turn 4 are in /srv/x; the session goes on there.\n');
  expect(calls).toEqual([
    {
      method: 'executeUpdate',
      workflowId: 'agent-1',
      args: [moveUpdate, { args: [{ host: 'b', workdir: '/srv/x' }] }],
    },
  ]);
});
