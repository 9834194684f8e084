import { resolve } from 'node:path';
import { parseRunArguments, runCommand } from '../../../../src/cli/commands/run';
import { PROJECT_ROOT } from '../../../support/paths';
import { cli, withUsage } from '../cli-output';

test('the options become the session input: workdir resolved, numbers parsed, tools split', () => {
  const parsed = parseRunArguments([
    '--workdir',
    '.',
    '--model',
    'claude-x',
    '--max-turns',
    '7',
    '--max-output-tokens',
    '1000',
    '--token-budget',
    '5000',
    '--max-budget-usd',
    '2.5',
    '--allowed-tools',
    'Read, Grep',
    '--permission-mode',
    'ask',
    '--interactive',
    '--workflow-id',
    'my-run',
    '--no-worker',
    '--json',
    'Fix',
    'the test',
  ]);
  expect(parsed).toEqual({
    input: {
      prompt: 'Fix the test',
      workdir: resolve('.'),
      model: 'claude-x',
      maxTurns: 7,
      maxOutputTokens: 1000,
      interactive: true,
      permissionMode: 'ask',
      tokenBudget: 5000,
      maxBudgetUsd: 2.5,
      allowedTools: ['Read', 'Grep'],
    },
    workflowId: 'my-run',
    startWorker: false,
    json: true,
    verbose: false,
  });
});

test('--json-schema asks for structured output, as Claude Code’s flag does', () => {
  const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
  expect(parseRunArguments(['--workdir', '.', '--json-schema', JSON.stringify(schema), 'task']).input).toEqual({
    prompt: 'task',
    workdir: resolve('.'),
    outputFormat: { type: 'json_schema', schema },
  });
});

test('an option not given leaves its field out of the input', () => {
  expect(parseRunArguments(['--repo', 'https://example.com/r.git', '--ref', 'main', 'task']).input).toEqual({
    prompt: 'task',
    repo: { url: 'https://example.com/r.git', ref: 'main' },
  });
});

test.each([
  [['task'], 'give --workdir <dir> or --repo <url>'],
  [['--workdir', '.', '--repo', 'u', 'task'], 'give --workdir <dir> or --repo <url>'],
  [['--workdir', '.', '--ref', 'main', 'task'], '--ref goes with --repo'],
  [['--workdir', '.'], 'the task is required, e.g. durable-agent run --workdir . "Fix the failing test"'],
  [['--workdir', '/no/such/dir', 'task'], '--workdir /no/such/dir is not a directory'],
  [['--workdir', '.', '--max-turns', 'ten', 'task'], '--max-turns takes a whole number, not ten'],
  [['--workdir', '.', '--token-budget', '1.5', 'task'], '--token-budget takes a whole number, not 1.5'],
  [
    ['--workdir', '.', '--max-budget-usd', 'ten', 'task'],
    '--max-budget-usd takes a positive number of dollars, not ten',
  ],
  [
    ['--workdir', '.', '--json-schema', '{type:', 'task'],
    '--json-schema takes a JSON Schema as JSON, e.g. \'{"type":"object","properties":{…}}\'',
  ],
])('run %j is a usage error (exit 2, with the usage)', async (args, message) => {
  const result = await cli(['run', ...args]);
  expect(result).toEqual({ code: 2, stdout: '', stderr: withUsage(message) });
});

test('an unknown option is a usage error too', async () => {
  const result = await cli(['run', '--workdir', PROJECT_ROOT, '--bogus', 'task']);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/^durable-agent: Unknown option '--bogus'/);
});

test('an input the schema refuses is a usage error, before anything connects', async () => {
  const result = await cli(['run', '--workdir', PROJECT_ROOT, '--permission-mode', 'never', 'task']);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('permissionMode');
});

test("the usage ends with run's options and the environment", () => {
  expect(runCommand.details).toMatch(/^Options for run:\n  --workdir <dir> /);
  expect(runCommand.details).toMatch(/AGENT_MODEL, AGENT_STORE \(see README\)\.$/);
});
