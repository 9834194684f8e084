/**
 * How a worker runs the commands of its sessions (Bash, stop hooks, later every executable
 * tool): inside a bubblewrap sandbox when it can, else unconfined, as `AGENT_SANDBOX` says.
 */
import type { SandboxRequest } from '../../shared/activity-io';
import { commandEnvironment } from '../tools/command-environment';
import { BUBBLEWRAP_ENVIRONMENT, bubblewrapArgs, probeBubblewrap, SANDBOX_HOME, SANDBOX_PATH } from './bubblewrap';

/** `AGENT_SANDBOX`: `auto` (bubblewrap when it works here, else unconfined with a warning), `bwrap` (required), `none`. */
export type SandboxMode = 'auto' | 'bwrap' | 'none';

/** The worker's sandbox settings, from its environment (worker-config.ts). */
export interface SandboxSettings {
  mode: SandboxMode;
  /** `AGENT_SANDBOX_PASS_ENV`: names of the worker's variables commands may see. */
  passEnv: string[];
  /** `AGENT_SANDBOX_NETWORK=off` unshares the network of every session. */
  network: boolean;
}

/** What a session asks of its commands' sandbox (input `sandboxEnv` and `network`). */
export type SessionSandbox = SandboxRequest;

/** A process to spawn for one command. */
export interface CommandSpawn {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Unconfined commands need a watchdog to die with the worker; sandboxed ones die with bubblewrap. */
  confined: boolean;
}

export interface CommandSandbox {
  kind: 'bwrap' | 'none';
  /** Why commands run unconfined, when they do. */
  reason?: string;
  spawn(command: string, workdir: string, session?: SessionSandbox): CommandSpawn;
}

/**
 * Unconfined: a watchdog beside the command kills its process group when the worker process
 * disappears, so a killed worker's command does not run on beside its retry.
 */
const LAUNCHER = [
  'worker_pid="$1"; user_command="$2"',
  '( while kill -0 "$worker_pid" 2>/dev/null; do sleep 1; done; kill -KILL 0 ) </dev/null >/dev/null 2>&1 &',
  'watchdog=$!',
  'bash -c "$user_command"',
  'status=$?',
  'kill "$watchdog" 2>/dev/null',
  'exit $status',
].join('\n');

export function unconfined(settings: Pick<SandboxSettings, 'passEnv'> = { passEnv: [] }, reason = 'AGENT_SANDBOX=none'): CommandSandbox {
  return {
    kind: 'none',
    reason,
    spawn: (command, _workdir, session) => ({
      file: 'bash',
      args: ['-c', LAUNCHER, 'durable-agent-command', String(process.pid), command],
      env: commandEnvironment(process.env, { passNames: settings.passEnv, extra: session?.env }),
      confined: false,
    }),
  };
}

export function bubblewrap(settings: Pick<SandboxSettings, 'passEnv' | 'network'>): CommandSandbox {
  return {
    kind: 'bwrap',
    spawn: (command, workdir, session) => {
      const environment = commandEnvironment(process.env, {
        passNames: settings.passEnv,
        extra: session?.env,
        overrides: { PATH: SANDBOX_PATH, HOME: SANDBOX_HOME, USER: 'agent', LOGNAME: 'agent', SHELL: '/bin/bash', TMPDIR: '/tmp' },
      });
      const network = settings.network && session?.network !== false;
      return { file: 'bwrap', args: [...bubblewrapArgs({ workdir, network, environment }), '--', 'bash', '-c', command], env: BUBBLEWRAP_ENVIRONMENT, confined: true };
    },
  };
}

/**
 * The sandbox a worker uses, from its settings; throws when bubblewrap is required and does not
 * work. `probeBinary`: the bwrap to probe (tests name a missing one).
 */
export async function resolveSandbox(settings: SandboxSettings, probeBinary = 'bwrap'): Promise<CommandSandbox> {
  if (settings.mode === 'none') return unconfined(settings);
  const probe = await probeBubblewrap(probeBinary);
  if (probe.ok) return bubblewrap(settings);
  if (settings.mode === 'bwrap') {
    throw new Error(`AGENT_SANDBOX=bwrap, but bubblewrap does not work here: ${probe.reason}. Install the package bubblewrap and allow user namespaces, or set AGENT_SANDBOX=auto.`);
  }
  return unconfined(settings, `bubblewrap does not work here (${probe.reason})`);
}
