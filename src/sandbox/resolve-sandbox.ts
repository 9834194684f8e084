/**
 * The sandbox a worker uses, decided once at its start: a real sandbox is started the way every
 * command's will be (as the sandbox's user, in a network namespace of its own) and must run
 * `true`; bubblewrap may be installed while user namespaces are off (a sysctl, a container's
 * seccomp or AppArmor profile), so only a run says it works.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAllowedDomains } from './allowed-domains';
import { checkCgroup } from './cgroup';
import { writeIdentityFiles } from './bubblewrap';
import { bubblewrap, type CommandSandbox, type SandboxSettings, unconfined } from './command-sandbox';
import { EgressProxies } from './egress-proxies';

/** `probeBinary`: the bwrap to probe (tests name a missing one). */
export async function resolveSandbox(settings: SandboxSettings, probeBinary = 'bwrap'): Promise<CommandSandbox> {
  if (settings.mode === 'none') return unconfined(settings);
  if (settings.cgroup) await checkCgroup(settings.cgroup);
  const socat = await runs('socat', ['-V']);
  // One directory of the worker's for what its sandboxes share; removed when the worker closes.
  const runtime = mkdtempSync(join(tmpdir(), `durable-agent-sandbox-${process.pid}-`));
  chmodSync(runtime, 0o755);
  const stage = join(runtime, 'stage');
  mkdirSync(stage, { mode: 0o755 });
  const staging: { unavailable?: string } = {};
  const sandbox = bubblewrap(settings, {
    proxies: new EgressProxies(),
    stage,
    identity: writeIdentityFiles(runtime),
    removeRuntime: () => rm(runtime, { recursive: true, force: true }),
    defaultDomains: defaultAllowedDomains(),
    ...(socat ? {} : { filterUnavailable: 'socat is not installed (Debian package socat)' }),
    staging,
  });
  const probe = (await runs(probeBinary, ['--version']))
    ? await probeStart(sandbox, settings)
    : 'bwrap is not installed (Debian/Ubuntu package: bubblewrap)';
  if (probe === undefined) {
    // A root worker binds workdirs its sandbox user cannot reach at a staging point: does that work here?
    if (process.getuid?.() === 0 && settings.sandboxUid !== 0) {
      const staged = await probeStart(sandbox, settings, { locked: true });
      if (staged !== undefined) {
        staging.unavailable = staged;
        sandbox.startWarnings.push(
          `workdirs under a directory the sandbox's user (uid ${settings.sandboxUid}) cannot enter cannot be used here: binding them for it fails (${staged}); keep them where that user can reach them`,
        );
      }
    }
    return sandbox;
  }
  await sandbox.close();
  if (settings.mode === 'bwrap') {
    throw new Error(
      `AGENT_SANDBOX=bwrap, but bubblewrap does not work here: ${probe}. Install the package bubblewrap and allow user namespaces, or set AGENT_SANDBOX=auto.`,
    );
  }
  return unconfined(settings, `bubblewrap does not work here (${probe})`);
}

/**
 * Starts `true` in a throwaway workdir of the sandbox's user; undefined when it ran, else why
 * not. `locked`: under a directory that user cannot enter (the staging bind's case).
 */
async function probeStart(
  sandbox: CommandSandbox,
  settings: SandboxSettings,
  { locked = false } = {},
): Promise<string | undefined> {
  const root = mkdtempSync(join(tmpdir(), 'durable-agent-probe-'));
  if (locked) chmodSync(root, 0o700);
  const workdir = locked ? join(root, 'workdir') : root;
  if (locked) mkdirSync(workdir);
  try {
    if (process.getuid?.() === 0 && settings.sandboxUid !== 0)
      chownSync(workdir, settings.sandboxUid, settings.sandboxUid);
    const child = await sandbox.start('true', workdir, { network: 'none' }, { stdin: false });
    const { code, stderr } = await exited(child, 10_000);
    if (code === 0) return undefined;
    const reason = stderr.trim().split('\n')[0] || `it exited with ${code}`;
    return process.getuid?.() === 0 && settings.sandboxUid !== 0
      ? `${reason} (as the sandbox's user, uid ${settings.sandboxUid}: AGENT_SANDBOX_UID)`
      : reason;
  } catch (error) {
    return (error as Error).message;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function exited(child: ChildProcess, timeoutMs: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout?.resume();
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, stderr: error.message });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

function runs(file: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => execFile(file, args, { timeout: 10_000 }, (error) => resolve(!error)));
}
