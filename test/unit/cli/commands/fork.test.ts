import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseForkArguments } from '../../../../src/cli/commands/fork';
import { scratchDir } from '../../../support/paths';
import { cli, withUsage } from '../cli-output';

const USAGE = 'usage: durable-agent fork <workflow-id> --turn N --workdir <new dir> ["<instruction>"]';

test('a new directory, the instruction as given (or to go on), a worker unless --no-worker', () => {
  const workdir = join(scratchDir('fork'), 'new');
  expect(parseForkArguments(['agent-1', '--turn', '2', '--workdir', workdir, 'Try', 'another way'])).toEqual({
    originalId: 'agent-1',
    turn: 2,
    workdir,
    instruction: 'Try another way',
    startWorker: true,
  });
  expect(
    parseForkArguments(['agent-1', '--turn', '2', '--workdir', workdir, '--no-worker', '--workflow-id', 'f']),
  ).toEqual({
    originalId: 'agent-1',
    turn: 2,
    workdir,
    instruction: 'Continue the task from this point.',
    startWorker: false,
    workflowId: 'f',
  });
});

test.each([[[]], [['agent-1', '--turn', '1']], [['agent-1', '--workdir', 'd']]])(
  'fork %j is a usage error (exit 2)',
  async (args) => {
    expect(await cli(['fork', ...args])).toEqual({ code: 2, stdout: '', stderr: withUsage(USAGE) });
  },
);

test('a workdir with files in it (or a file) is refused: the fork writes its files there', async () => {
  const full = scratchDir('fork-full');
  writeFileSync(join(full, 'x'), 'x');
  const file = join(scratchDir('fork-file'), 'file');
  writeFileSync(file, '');
  for (const workdir of [full, file])
    expect(await cli(['fork', 'agent-1', '--turn', '1', '--workdir', workdir])).toEqual({
      code: 2,
      stdout: '',
      stderr: withUsage(`--workdir ${workdir} must be a new or empty directory (the fork's files are written there)`),
    });
  const empty = join(scratchDir('fork-empty'), 'empty');
  mkdirSync(empty);
  expect(parseForkArguments(['agent-1', '--turn', '1', '--workdir', empty]).workdir).toBe(empty);
});

test('--turn takes a turn number', async () => {
  expect(await cli(['fork', 'agent-1', '--turn', 'x', '--workdir', 'd'])).toEqual({
    code: 2,
    stdout: '',
    stderr: withUsage('--turn takes a turn number, not x'),
  });
});
