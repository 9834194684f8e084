/**
 * How a worker runs the commands of its sessions (Bash, hooks, stdio MCP servers): inside a
 * bubblewrap sandbox when it can, else unconfined, as `AGENT_SANDBOX` says. A sandbox starts
 * as the workdir's unprivileged owner (sandbox-user.ts), on the network its session may have
 * (session-network.ts), within its limits (sandbox-limits.ts, cgroup.ts).
 */
import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';
import type { SandboxRequest } from '../shared/sandbox';
import { handOver } from '../workdir/hand-over';
import { Workdir } from '../workdir/workdir';
import { commandEnvironment } from './command-environment';
import type { AllowedDomain } from './allowed-domains';
import { BUBBLEWRAP_ENVIRONMENT, bubblewrapArgs, type IdentityFiles, SANDBOX_HOME, SANDBOX_PATH } from './bubblewrap';
import { type CgroupSettings, CommandCgroup } from './cgroup';
import type { EgressProxies } from './egress-proxies';
import { proxyEnvironment, sandboxLauncher, unconfinedLauncher } from './launcher';
import { type SandboxLimits, ulimitCommand } from './sandbox-limits';
import { type SandboxUser, sandboxUserFor } from './sandbox-user';
import { type NetworkSettings, type SessionNetwork, sessionNetwork } from './session-network';

/** `AGENT_SANDBOX`: `auto` (bubblewrap when it works here, else unconfined with a warning), `bwrap` (required), `none`. */
export type SandboxMode = 'auto' | 'bwrap' | 'none';

/** The worker's sandbox settings, from its environment (worker-config.ts). */
export interface SandboxSettings {
  mode: SandboxMode;
  /** `AGENT_SANDBOX_PASS_ENV`: names of the worker's variables commands may see. */
  passEnv: string[];
  /** `AGENT_SANDBOX_NETWORK=off`: no session's commands have network. */
  network: boolean;
  /** `AGENT_SANDBOX_ALLOW_HOST_NETWORK=1`: a session may ask for the worker's own network. */
  allowHostNetwork: boolean;
  /** `AGENT_SANDBOX_ALLOWED_DOMAINS`; undefined: the default list. */
  allowedDomains?: AllowedDomain[];
  /** `AGENT_SANDBOX_UID`: who a root worker's sandboxes run as when root owns the workdir (0: root, not advised). */
  sandboxUid: number;
  limits: SandboxLimits;
  /** `AGENT_SANDBOX_CGROUP`: a delegated cgroup v2 subtree for per-command memory and process limits. */
  cgroup?: CgroupSettings;
}

/** What a session asks of its commands' sandbox (input `sandboxEnv`, `network`, `allowedDomains`). */
export type SessionSandbox = SandboxRequest;

export interface StartOptions {
  /** Pipe the command's standard input (hooks, MCP servers); otherwise it has none. */
  stdin: boolean;
  /** Host directories the worker owns, seen read-only at `target` inside (an MCP server's installed package). */
  readOnlyBinds?: { source: string; target: string }[];
}

export interface CommandSandbox {
  kind: 'bwrap' | 'none';
  /** Why commands run unconfined, when they do. */
  reason?: string;
  limits: SandboxLimits;
  /** What the worker says about its sandbox when it starts (a part of it that does not work here). */
  startWarnings: string[];
  /** The network a session's commands get from this worker. */
  network(session?: SessionSandbox): SessionNetwork;
  /**
   * Starts a command in the workdir, in a process group of its own (a timeout or a cancel kills
   * the group, and with it the sandbox and everything inside).
   */
  start(
    command: string,
    workdir: string,
    session: SessionSandbox | undefined,
    options: StartOptions,
  ): Promise<ChildProcess>;
  close(): Promise<void>;
}

/** Where a root worker binds a workdir its sandbox user cannot reach (see sandbox-user.ts). */
const STAGE_SCRIPT =
  'stage="$1"; uid="$2"; gid="$3"; shift 3; mount --bind /proc/self/fd/3 "$stage" && exec 3>&- && exec setpriv --reuid="$uid" --regid="$gid" --clear-groups -- bwrap "$@"';

function stdioFor(options: StartOptions, extra: (number | 'pipe' | 'ignore')[] = []): StdioOptions {
  return [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', ...extra];
}

export function unconfined(
  settings: Pick<SandboxSettings, 'passEnv'> & Partial<Pick<SandboxSettings, 'limits'>> = { passEnv: [] },
  reason = 'AGENT_SANDBOX=none',
): CommandSandbox {
  const limits = settings.limits ?? {};
  const launcher = unconfinedLauncher({ limits: ulimitCommand(limits, { processes: false }) });
  return {
    kind: 'none',
    reason,
    limits,
    startWarnings: [],
    // Nothing confines an unconfined command's network: it is the worker's, whatever was asked.
    network: (session) => {
      const asked = sessionNetwork(session, { enabled: true, allowHost: true, allowedDomains: [] });
      return {
        mode: asked.mode === 'none' ? 'none' : 'host',
        allowedDomains: [],
        warnings: [`commands run unconfined (${reason}): their network is the worker's`],
      };
    },
    start: async (command, workdir, session, options) =>
      spawn('bash', ['-c', launcher, 'durable-agent-command', String(process.pid), command], {
        cwd: workdir,
        env: commandEnvironment(process.env, { passNames: settings.passEnv, extra: session?.env }),
        detached: true, // own process group, so the whole tree can be killed at once
        stdio: stdioFor(options),
      }),
    close: async () => {},
  };
}

export interface BubblewrapDependencies {
  proxies: EgressProxies;
  /** An empty directory every sandbox user can reach: the staging point (sandbox-user.ts). */
  stage: string;
  /** The sandbox user's passwd and group (writeIdentityFiles). */
  identity: IdentityFiles;
  /** Removes what the worker made for its sandboxes (the stage, the identity files) at close. */
  removeRuntime?: () => Promise<void>;
  /** Why filtered networks cannot work here, when they cannot (socat missing). */
  filterUnavailable?: string;
  /** The default allowed domains, when AGENT_SANDBOX_ALLOWED_DOMAINS names none. */
  defaultDomains: AllowedDomain[];
  /** Why the staging bind cannot work here (no CAP_SYS_ADMIN in a container), found by the worker's probe. */
  staging: { unavailable?: string };
}

export function bubblewrap(settings: SandboxSettings, dependencies: BubblewrapDependencies): CommandSandbox {
  const networkSettings: NetworkSettings = {
    enabled: settings.network,
    allowHost: settings.allowHostNetwork,
    allowedDomains: settings.allowedDomains ?? dependencies.defaultDomains,
    ...(dependencies.filterUnavailable ? { filterUnavailable: dependencies.filterUnavailable } : {}),
  };
  const limits = ulimitCommand(settings.limits, { processes: true });
  const worker: BubblewrapWorker = { settings, dependencies, networkSettings, limits };
  return {
    kind: 'bwrap',
    limits: settings.limits,
    startWarnings: [],
    network: (session) => sessionNetwork(session, networkSettings),
    start: (command, workdirPath, session, options) =>
      startInBubblewrap(worker, command, workdirPath, session, options),
    close: async () => {
      await dependencies.proxies.close();
      await dependencies.removeRuntime?.();
    },
  };
}

/** What every command of a bubblewrap worker starts with: its settings, the network rules made of them, its ulimits. */
interface BubblewrapWorker {
  settings: SandboxSettings;
  dependencies: BubblewrapDependencies;
  networkSettings: NetworkSettings;
  /** The `ulimit` command the launcher runs first. */
  limits: string;
}

async function startInBubblewrap(
  { settings, dependencies, networkSettings, limits }: BubblewrapWorker,
  command: string,
  workdirPath: string,
  session: SessionSandbox | undefined,
  options: StartOptions,
): Promise<ChildProcess> {
  const network = sessionNetwork(session, networkSettings);
  const egressSocket =
    network.mode === 'filtered' ? await dependencies.proxies.socketFor(network.allowedDomains) : undefined;
  const environment = sandboxEnvironment(settings, session, egressSocket);
  const inner = [
    'bash',
    '-c',
    sandboxLauncher({ bridge: egressSocket !== undefined, limits }),
    'durable-agent',
    command,
  ];
  const workdir = Workdir.open(workdirPath);
  try {
    const user = sandboxUserOf(settings, dependencies, workdir);
    const cgroup = settings.cgroup ? await CommandCgroup.create(settings.cgroup) : undefined;
    const handshake = cgroup ? ['--info-fd', '4', '--block-fd', '5'] : [];
    const call = {
      workdir: workdir.path,
      identity: dependencies.identity,
      ...(user.staged ? { workdirSource: dependencies.stage } : {}),
      network: network.mode,
      egressSocket,
      environment,
      ...(options.readOnlyBinds ? { readOnlyBinds: options.readOnlyBinds } : {}),
    };
    const args = [...bubblewrapArgs(call), ...handshake, '--', ...inner];
    const extra: (number | 'pipe' | 'ignore')[] = [
      user.staged ? workdir.descriptor() : 'ignore',
      ...(cgroup ? (['pipe', 'pipe'] as const) : []),
    ];
    const child = spawnBubblewrap(args, user, dependencies.stage, stdioFor(options, extra));
    if (cgroup) void joinCgroup(child, cgroup);
    return child;
  } finally {
    workdir.close();
  }
}

/** The command's environment: what the worker passes on, the session's own, and the sandbox's fixed names. */
function sandboxEnvironment(
  settings: SandboxSettings,
  session: SessionSandbox | undefined,
  egressSocket: string | undefined,
): Record<string, string> {
  return commandEnvironment(process.env, {
    passNames: settings.passEnv,
    extra: session?.env,
    overrides: {
      PATH: SANDBOX_PATH,
      HOME: SANDBOX_HOME,
      USER: 'agent',
      LOGNAME: 'agent',
      SHELL: '/bin/bash',
      TMPDIR: '/tmp',
      ...(egressSocket ? proxyEnvironment() : {}),
    },
  });
}

/**
 * Who the sandbox runs as: a root-owned workdir of a root worker is handed over to the sandbox
 * user first; a user who cannot reach the workdir needs the staging bind, which must work here.
 */
function sandboxUserOf(settings: SandboxSettings, dependencies: BubblewrapDependencies, workdir: Workdir): SandboxUser {
  if (settings.sandboxUid !== 0 && process.getuid?.() === 0 && workdir.stats().uid === 0)
    handOver(workdir, { uid: settings.sandboxUid, gid: settings.sandboxUid });
  const user = sandboxUserFor({ path: workdir.path, stats: workdir.stats() }, settings.sandboxUid);
  if (user.staged && dependencies.staging.unavailable) {
    throw new Error(
      `the sandbox's user (uid ${user.uid}) cannot enter the directories above ${workdir.path}, and binding it for that user does not work here ` +
        `(${dependencies.staging.unavailable}): make them searchable (chmod o+x), or keep workdirs where that user can reach them (AGENT_WORKSPACE_ROOTS)`,
    );
  }
  return user;
}

/** bubblewrap itself, or (staged) inside a mount namespace of its own that binds the workdir at the stage first. */
function spawnBubblewrap(args: string[], user: SandboxUser, stage: string, stdio: StdioOptions): ChildProcess {
  return user.staged
    ? spawn(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          '--',
          '/bin/sh',
          '-c',
          STAGE_SCRIPT,
          'durable-agent-stage',
          stage,
          String(user.uid),
          String(user.gid),
          ...args,
        ],
        {
          cwd: '/',
          env: BUBBLEWRAP_ENVIRONMENT,
          detached: true,
          stdio,
        },
      )
    : spawn('bwrap', args, {
        cwd: '/',
        env: BUBBLEWRAP_ENVIRONMENT,
        detached: true,
        stdio,
        ...(user.uid !== undefined ? { uid: user.uid, gid: user.gid } : {}),
      });
}

/**
 * bubblewrap tells the sandbox's first process on --info-fd and waits on --block-fd: it goes
 * into the command's cgroup before it starts the command, so everything the command starts is
 * inside. A failure kills the command rather than letting it run without its limits.
 */
async function joinCgroup(child: ChildProcess, cgroup: CommandCgroup): Promise<void> {
  const stdio = child.stdio as unknown as ((NodeJS.ReadableStream & NodeJS.WritableStream) | null)[];
  const info = stdio[4] ?? null;
  const release = stdio[5] ?? null;
  child.once('close', () => void cgroup.remove().catch(() => {}));
  try {
    let text = '';
    for await (const chunk of info ?? []) {
      text += String(chunk);
      const pid = /"child-pid":\s*(\d+)/.exec(text)?.[1];
      if (!pid) continue;
      await cgroup.add(Number(pid));
      release?.end('x');
      return;
    }
    throw new Error('bubblewrap did not say its child process');
  } catch {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
