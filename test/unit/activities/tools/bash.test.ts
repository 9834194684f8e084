/** Bash, running real commands (unconfined) in a real workdir: output, exit codes, timeouts, retries. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bashTool } from '../../../../src/activities/tools/bash';
import { TOOLS } from '../../../../src/activities/tools/registry';
import { commandEnvironment } from '../../../../src/sandbox/command-environment';
import { CappedOutput } from '../../../../src/sandbox/process-group';
import { inputError, toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

let repo: ToolWorkdir;

beforeEach(() => {
  repo = toolWorkdir('bash');
});

describe('Bash', () => {
  test('runs in the workdir, reports the exit code, and flags non-zero as an error', async () => {
    const ok = await bashTool.execute({ command: 'pwd; echo out; echo err >&2' }, repo.context());
    expect(ok.text).toContain(repo.path);
    expect(ok.text).toContain('out');
    expect(ok.text).toContain('err');
    expect(ok.text).toMatch(/Exit code: 0$/);
    expect(ok.isError).toBe(false);
    const failed = await bashTool.execute({ command: 'exit 7' }, repo.context());
    expect(failed).toMatchObject({ isError: true, text: expect.stringContaining('Exit code: 7') });
  });

  test('times out and kills the whole process group', async () => {
    const output = await bashTool.execute({ command: 'sleep 30 & sleep 30', timeout: 300 }, repo.context());
    expect(output).toMatchObject({ isError: true, text: expect.stringContaining('timed out after 300 ms') });
  });

  test('a re-run after a crash says so', async () => {
    const output = await bashTool.execute({ command: 'echo again' }, repo.context({ attempt: 2 }));
    expect(output.text).toMatch(/^Note: this command had already been started/);
  });

  test('caps output keeping head and tail', async () => {
    const output = await bashTool.execute(
      { command: "head -c 100000 /dev/zero | tr '\\0' a; echo; echo THE-END" },
      repo.context(),
    );
    expect(output.text.length).toBeLessThan(31_000);
    expect(output.text).toContain('characters of output cut');
    expect(output.text).toContain('THE-END');
    const capped = new CappedOutput(10);
    capped.append('0123456789abcdefghij');
    expect(capped.toString()).toBe('01234\n\n... [10 characters of output cut] ...\n\nfghij');
  });

  test('commands do not get the worker secrets', () => {
    const environment = commandEnvironment({
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'k',
      TEMPORAL_TLS_KEY: 'k',
      GITHUB_TOKEN: 't',
      HOME: '/h',
    });
    expect(environment).toMatchObject({ PATH: '/bin', HOME: '/h' });
    expect(Object.keys(environment)).not.toEqual(expect.arrayContaining(['ANTHROPIC_API_KEY']));
    expect(environment.TEMPORAL_TLS_KEY).toBeUndefined();
    expect(environment.GITHUB_TOKEN).toBeUndefined();
  });

  test('a silent command says so rather than returning nothing', async () => {
    expect(await bashTool.execute({ command: 'true' }, repo.context())).toEqual({
      text: '(no output)\n\nExit code: 0',
      isError: false,
    });
  });

  test('a command killed by a signal is an error naming the signal', async () => {
    // Group 0 is the command's own process group (it runs detached), never the worker's.
    const output = await bashTool.execute({ command: 'echo before; kill -KILL 0' }, repo.context());
    expect(output).toEqual({ isError: true, text: 'before\n\nCommand was killed by signal SIGKILL.' });
  });

  test('a failure that looks like a sandbox limit names the limits and how to raise them; a success does not', async () => {
    const failed = await bashTool.execute(
      { command: 'echo "bash: fork: Resource temporarily unavailable" >&2; exit 254' },
      repo.context(),
    );
    expect(failed.isError).toBe(true);
    expect(failed.text).toMatch(/Note: the command may have reached a limit: each command here is limited to /);
    expect(failed.text).toContain('AGENT_SANDBOX_MAX_PROCESSES');
    expect(failed.text).toMatch(/Exit code: 254$/);
    const succeeded = await bashTool.execute(
      { command: 'echo "Cannot allocate memory, said the test"' },
      repo.context(),
    );
    expect(succeeded.text).not.toContain('Note:');
  });

  test('the output is seen as it comes, by whoever watches the call', async () => {
    const chunks: string[] = [];
    await bashTool.execute(
      { command: 'echo first; echo second' },
      repo.context({ onOutput: (chunk) => chunks.push(chunk) }),
    );
    expect(chunks.join('')).toBe('first\nsecond\n');
  });

  test('a retry after its worker died reports what the lost run changed and does not run the command again', async () => {
    const output = await bashTool.execute(
      { command: 'touch ran-again' },
      repo.context({
        attempt: 2,
        changesSinceSnapshot: async () => [
          { path: 'src/a.ts', change: 'modified' },
          { path: 'out.log', change: 'added' },
        ],
      }),
    );
    expect(output.isError).toBe(true);
    expect(output.text).toContain('This command was started (attempt 1) but the worker running it stopped');
    expect(output.text).toContain(
      'It was not run again. Since it started, the workspace changed: modified src/a.ts, created out.log.',
    );
    const unchanged = await bashTool.execute(
      { command: 'touch ran-again' },
      repo.context({ attempt: 3, changesSinceSnapshot: async () => [] }),
    );
    expect(unchanged.text).toContain('(attempt 2)');
    expect(unchanged.text).toContain('No file in the workspace changed since it started.');
    expect(existsSync(join(repo.path, 'ran-again'))).toBe(false);
  });

  test('a retry after its host was lost says the files are as before the command, and does not run it', async () => {
    const output = await bashTool.execute(
      { command: 'touch ran-again' },
      repo.context({ attempt: 2, lostWithHost: true }),
    );
    expect(output.isError).toBe(true);
    expect(output.text).toMatch(/^This command was started, but the host running it was lost/);
    expect(output.text).toContain('It was not run again');
    expect(existsSync(join(repo.path, 'ran-again'))).toBe(false);
  });

  test('its summary: the description when given, else the first line of the command, cut at 80 characters', () => {
    expect(bashTool.summarize({ command: 'npm test', description: 'Runs the tests' })).toBe('Bash Runs the tests');
    expect(bashTool.summarize({ command: 'cd src\nmake' })).toBe('Bash cd src');
    expect(bashTool.summarize({ command: `echo ${'x'.repeat(100)}` })).toBe(`Bash echo ${'x'.repeat(72)}...`);
  });

  test('its input: a command, a timeout of at most 10 minutes in whole milliseconds, nothing else', () => {
    expect(inputError('Bash', { command: 'ls', timeout: 600_000, description: 'Lists files' })).toBeUndefined();
    expect(inputError('Bash', {})).toContain('the required parameter `command` is missing');
    expect(inputError('Bash', { command: '' })).toContain('- `command`:');
    expect(inputError('Bash', { command: 'ls', timeout: 600_001 })).toContain('- `timeout`:');
    expect(inputError('Bash', { command: 'ls', timeout: 0 })).toContain('- `timeout`:');
    expect(inputError('Bash', { command: 'ls', cwd: '/' })).toContain('unexpected parameter(s): cwd');
  });

  test('run_in_background plans a background command (the workflow starts it) with a 10-minute default timeout', async () => {
    const planned = await TOOLS.plan(
      { id: 'toolu_1', name: 'Bash', input: { command: 'touch started', run_in_background: true } },
      repo.path,
      ['Bash'],
    );
    expect(planned.plan).toMatchObject({
      ok: true,
      rules: { background: 'start', needsApproval: true, timeoutMs: 600_000 + 60_000 },
    });
    expect(existsSync(join(repo.path, 'started'))).toBe(false);
    const foreground = await TOOLS.plan(
      { id: 'toolu_2', name: 'Bash', input: { command: 'ls', run_in_background: false } },
      repo.path,
      ['Bash'],
    );
    expect(foreground.plan.ok && foreground.plan.rules?.background).toBeUndefined();
  });

  test('dangerouslyDisableSandbox is accepted and never honoured: the result says the sandbox stayed on', async () => {
    expect(inputError('Bash', { command: 'ls', dangerouslyDisableSandbox: true })).toBeUndefined();
    const output = await bashTool.execute({ command: 'echo hi', dangerouslyDisableSandbox: true }, repo.context());
    expect(output.text).toBe(
      'hi\n\nNote: dangerouslyDisableSandbox is not honoured here: the command ran in the sandbox, as every command does.\n\nExit code: 0',
    );
    const plain = await bashTool.execute({ command: 'echo hi' }, repo.context());
    expect(plain.text).toBe('hi\n\nExit code: 0');
  });
});
