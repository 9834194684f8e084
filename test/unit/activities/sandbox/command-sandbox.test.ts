/** The sandbox as a worker resolves it, and what a command sees inside it (real bubblewrap). */
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveSandbox, type CommandSandbox } from '../../../../src/activities/sandbox/command-sandbox';
import { sandboxSettings } from '../../../../src/worker-config';
import { scratchDir } from '../../../support/paths';

const run = promisify(execFile);
const settings = (environment: NodeJS.ProcessEnv) => sandboxSettings(environment);

async function inside(sandbox: CommandSandbox, command: string, workdir: string, session?: Parameters<CommandSandbox['spawn']>[2]): Promise<string> {
  const spec = sandbox.spawn(command, workdir, session);
  const { stdout } = await run(spec.file, spec.args, { env: spec.env, cwd: workdir }).catch((error: { stdout: string }) => error);
  return stdout;
}

describe('AGENT_SANDBOX', () => {
  test('bwrap is required: without a working bubblewrap the worker refuses to start, naming the package', async () => {
    await expect(resolveSandbox(settings({ AGENT_SANDBOX: 'bwrap' }), '/nonexistent/bwrap')).rejects.toThrow(
      /AGENT_SANDBOX=bwrap, but bubblewrap does not work here: bwrap is not installed \(Debian\/Ubuntu package: bubblewrap\)/,
    );
  });

  test('auto falls back to unconfined, saying why; none is unconfined on purpose', async () => {
    expect(await resolveSandbox(settings({}), '/nonexistent/bwrap')).toMatchObject({ kind: 'none', reason: expect.stringContaining('bubblewrap does not work here') });
    expect(await resolveSandbox(settings({ AGENT_SANDBOX: 'none' }))).toMatchObject({ kind: 'none', reason: 'AGENT_SANDBOX=none' });
  });

  test('settings are checked and named', () => {
    expect(() => settings({ AGENT_SANDBOX: 'docker' })).toThrow('AGENT_SANDBOX=docker: use auto, bwrap or none');
    expect(() => settings({ AGENT_SANDBOX_NETWORK: 'no' })).toThrow('AGENT_SANDBOX_NETWORK=no: use on or off');
    expect(settings({ AGENT_SANDBOX_PASS_ENV: ' NPM_TOKEN, ,GOPROXY ' })).toEqual({ mode: 'auto', passEnv: ['NPM_TOKEN', 'GOPROXY'], network: true });
  });
});

describe('inside bubblewrap', () => {
  let sandbox: CommandSandbox;
  let workdir: string;

  beforeAll(async () => {
    // .ci/run installs bubblewrap: here it must work.
    sandbox = await resolveSandbox({ mode: 'bwrap', passEnv: ['DURABLE_AGENT_PASSED'], network: true });
    workdir = scratchDir('sandboxed');
    writeFileSync(join(workdir, 'file.txt'), 'in the workdir\n');
  });

  test('an unprivileged user in the workdir at its own path, with a private /tmp and home', async () => {
    const hostFile = join(tmpdir(), `durable-agent-host-${process.pid}`);
    writeFileSync(hostFile, 'the host /tmp');
    try {
      const output = await inside(sandbox, `id -u; pwd; cat file.txt; test -e ${hostFile} || echo private-tmp; ls -A $HOME | wc -l; echo $HOME`, workdir);
      expect(output).toBe(`1000\n${workdir}\nin the workdir\nprivate-tmp\n0\n/home/agent\n`);
    } finally {
      rmSync(hostFile, { force: true });
    }
  });

  test('its own processes only; no shadow file; the system read-only', async () => {
    const output = await inside(sandbox, `ls /proc | grep -c '^[0-9]'; cat /etc/shadow >/dev/null 2>&1 || echo no-shadow; touch /usr/x 2>/dev/null || echo read-only`, workdir);
    const [processes, ...rest] = output.trim().split('\n');
    expect(Number(processes)).toBeLessThanOrEqual(4);
    expect(rest).toEqual(['no-shadow', 'read-only']);
  });

  test('the environment is an allow-list, plus the session sandboxEnv and AGENT_SANDBOX_PASS_ENV', async () => {
    process.env.DURABLE_AGENT_PASSED = 'passed';
    process.env.DURABLE_AGENT_SECRET = 'secret';
    try {
      const output = await inside(sandbox, 'env', workdir, { env: { NODE_ENV: 'test' } });
      expect(output).toContain('DURABLE_AGENT_PASSED=passed');
      expect(output).toContain('NODE_ENV=test');
      expect(output).not.toContain('secret');
      expect(output).not.toContain('ANTHROPIC');
    } finally {
      delete process.env.DURABLE_AGENT_PASSED;
      delete process.env.DURABLE_AGENT_SECRET;
    }
  });

  test('network: false leaves only the loopback device', async () => {
    const devices = (text: string) => text.split('\n').slice(2).map((line) => line.split(':')[0]!.trim()).filter(Boolean);
    expect(devices(await inside(sandbox, 'cat /proc/net/dev', workdir, { network: false }))).toEqual(['lo']);
  });
});
