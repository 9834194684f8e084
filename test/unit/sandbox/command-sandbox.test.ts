/** The sandbox as a worker resolves it, and what a command sees inside it (real bubblewrap). */
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandSandbox } from '../../../src/sandbox/command-sandbox';
import { resolveSandbox } from '../../../src/sandbox/resolve-sandbox';
import { sandboxSettings } from '../../../src/worker-config';
import { scratchDir } from '../../support/paths';

const settings = (environment: NodeJS.ProcessEnv) => sandboxSettings(environment);

async function inside(
  sandbox: CommandSandbox,
  command: string,
  workdir: string,
  session?: Parameters<CommandSandbox['start']>[2],
): Promise<string> {
  const child = await sandbox.start(command, workdir, session, { stdin: false });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.resume();
  await new Promise((resolve) => child.once('close', resolve));
  return stdout;
}

describe('AGENT_SANDBOX', () => {
  test('bwrap is required: without a working bubblewrap the worker refuses to start, naming the package', async () => {
    await expect(resolveSandbox(settings({ AGENT_SANDBOX: 'bwrap' }), '/nonexistent/bwrap')).rejects.toThrow(
      /AGENT_SANDBOX=bwrap, but bubblewrap does not work here: bwrap is not installed \(Debian\/Ubuntu package: bubblewrap\)/,
    );
  });

  test('auto falls back to unconfined, saying why; none is unconfined on purpose', async () => {
    expect(await resolveSandbox(settings({}), '/nonexistent/bwrap')).toMatchObject({
      kind: 'none',
      reason: expect.stringContaining('bubblewrap does not work here'),
    });
    expect(await resolveSandbox(settings({ AGENT_SANDBOX: 'none' }))).toMatchObject({
      kind: 'none',
      reason: 'AGENT_SANDBOX=none',
    });
  });

  test('settings are checked and named', () => {
    expect(() => settings({ AGENT_SANDBOX: 'docker' })).toThrow('AGENT_SANDBOX=docker: use auto, bwrap or none');
    expect(() => settings({ AGENT_SANDBOX_NETWORK: 'no' })).toThrow('AGENT_SANDBOX_NETWORK=no: use on or off');
    expect(settings({ AGENT_SANDBOX_PASS_ENV: ' NPM_TOKEN, ,GOPROXY ' })).toMatchObject({
      mode: 'auto',
      passEnv: ['NPM_TOKEN', 'GOPROXY'],
      network: true,
      allowHostNetwork: false,
      sandboxUid: 1000,
    });
  });
});

describe('inside bubblewrap', () => {
  let sandbox: CommandSandbox;
  let workdir: string;

  beforeAll(async () => {
    // .ci/run installs bubblewrap: here it must work.
    sandbox = await resolveSandbox({ ...settings({}), mode: 'bwrap', passEnv: ['DURABLE_AGENT_PASSED'] });
    workdir = scratchDir('sandboxed');
    writeFileSync(join(workdir, 'file.txt'), 'in the workdir\n');
  });

  test('an unprivileged user in the workdir at its own path, with a private /tmp and home', async () => {
    const hostFile = join(tmpdir(), `durable-agent-host-${process.pid}`);
    writeFileSync(hostFile, 'the host /tmp');
    try {
      const output = await inside(
        sandbox,
        `id -u; pwd; cat file.txt; test -e ${hostFile} || echo private-tmp; ls -A $HOME | wc -l; echo $HOME`,
        workdir,
      );
      expect(output).toBe(`1000\n${workdir}\nin the workdir\nprivate-tmp\n0\n/home/agent\n`);
    } finally {
      rmSync(hostFile, { force: true });
    }
  });

  test('its own processes only; no shadow file; the system read-only', async () => {
    const listing = 'for pid in /proc/[0-9]*; do cat $pid/comm 2>/dev/null; done | sort -u | tr "\\n" " "; echo';
    const output = await inside(
      sandbox,
      `${listing}; cat /etc/shadow >/dev/null 2>&1 || echo no-shadow; touch /usr/x 2>/dev/null || echo read-only`,
      workdir,
    );
    const [processes, ...rest] = output.trim().split('\n');
    // By name, not by count: the bridge to the egress proxy (socat) may fork for its readiness
    // probe's connection, and a loaded machine may still show that child. Nothing of the host's
    // (node, temporal, postgres…) is visible: only bwrap's init, the shells, socat and the listing
    // (whose own `cat` started after the glob, so it never lists itself).
    const seen = processes.trim().split(' ');
    expect(seen).toContain('bwrap');
    for (const name of seen) expect(['bwrap', 'bash', 'sh', 'socat', 'cat', 'sort', 'tr']).toContain(name);
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

  afterAll(() => sandbox.close());

  test('network: false leaves only the loopback device', async () => {
    const devices = (text: string) =>
      text
        .split('\n')
        .slice(2)
        .map((line) => line.split(':')[0]!.trim())
        .filter(Boolean);
    expect(devices(await inside(sandbox, 'cat /proc/net/dev', workdir, { network: false }))).toEqual(['lo']);
  });
});

describe('who the sandbox is on the host, and what it may use', () => {
  let sandbox: CommandSandbox;

  beforeAll(async () => {
    sandbox = await resolveSandbox({
      ...settings({ AGENT_SANDBOX_MAX_PROCESSES: '64', AGENT_SANDBOX_MAX_MEMORY: '1g' }),
      mode: 'bwrap',
    });
  });
  afterAll(() => sandbox.close());

  const asRoot = process.getuid?.() === 0 ? test : test.skip;

  asRoot(
    "under a root worker, a root-owned workdir is handed to the sandbox user, and what commands make is that user's, set-uid bits included",
    async () => {
      const workdir = scratchDir('handed-over');
      writeFileSync(join(workdir, 'existing.txt'), 'x');
      expect(statSync(workdir).uid).toBe(0);
      expect(await inside(sandbox, 'cp /usr/bin/id made && chmod 4755 made && echo done', workdir)).toBe('done\n');
      for (const name of ['', 'existing.txt', 'made']) expect(statSync(join(workdir, name)).uid).toBe(1000);
      // A set-uid binary of uid 1000 gives nobody root.
      expect(statSync(join(workdir, 'made')).mode & 0o4000).toBe(0o4000);
    },
  );

  asRoot(
    'a workdir under a directory the sandbox user cannot enter is reached through a staging mount, invisible on the host',
    async () => {
      const locked = scratchDir('locked');
      chmodSync(locked, 0o700);
      const workdir = join(locked, 'repo');
      mkdirSync(workdir);
      chownSync(workdir, 1000, 1000);
      expect(await inside(sandbox, 'pwd; echo hello > greeting.txt; id -u', workdir)).toBe(`${workdir}\n1000\n`);
      expect(readFileSync(join(workdir, 'greeting.txt'), 'utf8')).toBe('hello\n');
      expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(`durable-agent-sandbox-${process.pid}-`);
    },
  );

  test('limits are hard limits inside: processes and memory per process', async () => {
    const workdir = scratchDir('limits');
    const output = await inside(
      sandbox,
      'ulimit -Hu; ulimit -Hd; ulimit -u 100000 2>/dev/null || echo cannot-raise',
      workdir,
      { network: 'none' },
    );
    expect(output).toBe(`64\n${1024 * 1024}\ncannot-raise\n`);
  });
});

test("a worker's sandbox keeps what its commands share in one directory of its own, and removes it at close", async () => {
  const ours = () =>
    new Set(readdirSync(tmpdir()).filter((name) => name.startsWith(`durable-agent-sandbox-${process.pid}-`)));
  const before = ours();
  const sandbox = await resolveSandbox({ ...settings({}), mode: 'bwrap' });
  const made = [...ours()].filter((name) => !before.has(name));
  expect(made).toHaveLength(1);
  expect(readdirSync(join(tmpdir(), made[0]!)).sort()).toEqual(['group', 'passwd', 'stage']);
  expect(await inside(sandbox, 'id -un', scratchDir('identity'), { network: 'none' })).toBe('agent\n');
  await sandbox.close();
  expect(existsSync(join(tmpdir(), made[0]!))).toBe(false);
});
