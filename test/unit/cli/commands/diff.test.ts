import { parseDiffArguments } from '../../../../src/cli/commands/diff';
import { cli, withUsage } from '../cli-output';

test('--turn N is what turn N changed: from turn N-1 to turn N', () => {
  expect(parseDiffArguments(['agent-1', '--turn', '3'])).toEqual({
    workflowId: 'agent-1',
    turn: 3,
    fromTurn: 2,
    toTurn: 3,
    stat: false,
  });
  expect(parseDiffArguments(['agent-1', '--turn', '0', '--stat'])).toMatchObject({
    fromTurn: 0,
    toTurn: 0,
    stat: true,
  });
});

test('--from and --to between two turns; neither, the whole session', () => {
  expect(parseDiffArguments(['agent-1', '--from', '1', '--to', '4'])).toEqual({
    workflowId: 'agent-1',
    fromTurn: 1,
    toTurn: 4,
    stat: false,
  });
  expect(parseDiffArguments(['agent-1'])).toEqual({ workflowId: 'agent-1', stat: false });
});

test.each([
  [[], 'usage: durable-agent diff <workflow-id> [--turn N | --from N --to M] [--stat]'],
  [['agent-1', '--turn', 'x'], '--turn takes a turn number, not x'],
  [['agent-1', '--from', 'y'], '--from takes a turn number, not y'],
  [['agent-1', '--to', '1.5'], '--to takes a turn number, not 1.5'],
])('diff %j is a usage error (exit 2)', async (args, message) => {
  expect(await cli(['diff', ...args])).toEqual({ code: 2, stdout: '', stderr: withUsage(message) });
});
