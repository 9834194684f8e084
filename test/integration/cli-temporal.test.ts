/**
 * `durable-agent temporal …` runs the Temporal CLI the project found or installed (global setup
 * sets TEMPORAL_CLI_PATH to it, as a user's first run installs it): the docs' `temporal` lines
 * work without it on PATH, with every argument and the exit code passed through.
 */
import { execFileSync } from 'node:child_process';
import { CliProcess } from '../support/cli-process';
import { temporalAddress, uniqueId } from '../support/harness';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function durableAgent(args: string[]): Promise<Outcome> {
  const cli = new CliProcess(['temporal', ...args], { ...process.env, TEMPORAL_ADDRESS: temporalAddress() });
  const code = await cli.exited;
  const text = (lines: { text: string }[]) => lines.map((line) => line.text).join('\n');
  return { code, stdout: text(cli.stdout), stderr: text(cli.stderr) };
}

test('temporal --version prints the version of the installed CLI', async () => {
  const installed = execFileSync(process.env.TEMPORAL_CLI_PATH!, ['--version'], { encoding: 'utf8' }).trim();
  expect(installed).toMatch(/^temporal version \d+\.\d+\.\d+/);
  const result = await durableAgent(['--version']);
  expect(result).toEqual({ code: 0, stdout: installed, stderr: '' });
});

test('arguments with spaces and quotes reach the CLI as given, and its exit code comes back', async () => {
  const workflowId = uniqueId('temporal-passthrough');
  const input = JSON.stringify({ prompt: "it's a prompt with spaces", workdir: '/nowhere' });
  // No worker polls this queue: the workflow only has to exist for the CLI to describe it.
  const queue = uniqueId('no-worker');
  const start = ['workflow', 'start', '--task-queue', queue, '--type', 'agentWorkflow', '--workflow-id', workflowId];
  const started = await durableAgent([...start, '--input', input]);
  expect(started.code).toBe(0);
  try {
    const query = `WorkflowId='${workflowId}'`;
    const listed = await durableAgent(['workflow', 'list', '--query', query, '--output', 'json']);
    expect(listed.code).toBe(0);
    const execution = expect.objectContaining({ workflowId });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ execution })]);
  } finally {
    const terminate = ['workflow', 'terminate', '--workflow-id', workflowId, '--reason', 'test over'];
    const terminated = await durableAgent(terminate);
    expect(terminated.code).toBe(0);
  }
  const missing = await durableAgent(['workflow', 'describe', '--workflow-id', uniqueId('never-started')]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('workflow not found');
});
