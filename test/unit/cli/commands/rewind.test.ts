import { parseRewindArguments } from '../../../../src/cli/commands/rewind';
import { cli, withUsage } from '../cli-output';

const USAGE = 'usage: durable-agent rewind <workflow-id> --turn N [--conversation-only] [--force]';

test('files and conversation by default; --conversation-only and --force as given', () => {
  expect(parseRewindArguments(['agent-1', '--turn', '3'])).toEqual({
    workflowId: 'agent-1',
    request: { turn: 3, files: true, force: false },
  });
  expect(parseRewindArguments(['agent-1', '--turn', '0', '--conversation-only', '--force'])).toEqual({
    workflowId: 'agent-1',
    request: { turn: 0, files: false, force: true },
  });
});

test.each([
  [[], USAGE],
  [['agent-1'], USAGE],
  [['--turn', '1'], USAGE],
  [['agent-1', '--turn', 'x'], '--turn takes a turn number, not x'],
])('rewind %j is a usage error (exit 2)', async (args, message) => {
  expect(await cli(['rewind', ...args])).toEqual({ code: 2, stdout: '', stderr: withUsage(message) });
});

test('an unknown option is a usage error', async () => {
  const result = await cli(['rewind', 'agent-1', '--turn', '1', '--files']);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/^durable-agent: Unknown option '--files'/);
});
