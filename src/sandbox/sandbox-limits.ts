/**
 * What one command may use: processes (threads count too), memory per process, the size of a
 * file it writes, CPU time. Set with the shell's `ulimit` right before the command runs, inside
 * its sandbox, hard limits so it cannot raise them again. Exceeding one fails the command (fork
 * fails, an allocation fails, SIGXFSZ, SIGXCPU), never the worker or another session.
 *
 * Memory is RLIMIT_DATA, not RLIMIT_AS: V8 and the JVM reserve far more address space than they
 * use (Node does not start under a 4 GiB RLIMIT_AS), while the data limit counts what a process
 * makes writable, which is what it uses. The process limit counts per user namespace, that is
 * per command: one session's fork bomb does not starve another's (see sandbox-user.ts: under a
 * root worker the sandbox runs as an unprivileged user, for whom the kernel enforces it at all).
 */
import { availableParallelism } from 'node:os';

export interface SandboxLimits {
  /** RLIMIT_NPROC: processes and threads. */
  processes?: number;
  /** RLIMIT_DATA per process, bytes. */
  memoryBytes?: number;
  /** RLIMIT_FSIZE, bytes. */
  fileSizeBytes?: number;
  /** RLIMIT_CPU per process, seconds. */
  cpuSeconds?: number;
}

const GIB = 1024 ** 3;

/**
 * Generous enough for a large repository's `npm test` (a Jest worker per core, each a process
 * with its own memory), far below what takes a machine down: 1,024 tasks, or 64 per core on a
 * bigger machine; 4 GiB per process (Node's own heap ceiling on 64-bit); files up to 16 GiB; no
 * CPU limit (a command's wall time has its timeout already).
 */
export function defaultLimits(cores = availableParallelism()): SandboxLimits {
  return { processes: Math.max(1024, 64 * cores), memoryBytes: 4 * GIB, fileSizeBytes: 16 * GIB };
}

/**
 * The worker's limits: AGENT_SANDBOX_MAX_PROCESSES, AGENT_SANDBOX_MAX_MEMORY (`4g`, `512m`,
 * bytes), AGENT_SANDBOX_MAX_FILE_SIZE, AGENT_SANDBOX_MAX_CPU_SECONDS; `unlimited` (or 0) lifts one.
 */
export function limitsFromEnvironment(environment: NodeJS.ProcessEnv): SandboxLimits {
  const defaults = defaultLimits();
  const read = (name: string, parse: (text: string) => number | undefined, fallback: number | undefined) => {
    const text = environment[name]?.trim();
    if (!text) return fallback;
    if (text === 'unlimited' || text === '0') return undefined;
    const value = parse(text);
    if (value === undefined || !Number.isSafeInteger(value) || value <= 0)
      throw new Error(
        `${name}=${text}: a positive number${name.endsWith('SECONDS') || name.endsWith('PROCESSES') ? '' : ' of bytes (4g, 512m, 1073741824)'}, or unlimited`,
      );
    return value;
  };
  return withoutUndefined({
    processes: read('AGENT_SANDBOX_MAX_PROCESSES', integer, defaults.processes),
    memoryBytes: read('AGENT_SANDBOX_MAX_MEMORY', byteSize, defaults.memoryBytes),
    fileSizeBytes: read('AGENT_SANDBOX_MAX_FILE_SIZE', byteSize, defaults.fileSizeBytes),
    cpuSeconds: read('AGENT_SANDBOX_MAX_CPU_SECONDS', integer, defaults.cpuSeconds),
  });
}

/**
 * The `ulimit` line for bash (hard and soft). `processes: false` leaves RLIMIT_NPROC out: an
 * unconfined command shares its user with the worker, whose own processes it would count.
 */
export function ulimitCommand(limits: SandboxLimits, { processes }: { processes: boolean }): string {
  const parts: string[] = [];
  if (processes && limits.processes) parts.push(`-u ${limits.processes}`);
  if (limits.memoryBytes) parts.push(`-d ${Math.floor(limits.memoryBytes / 1024)}`);
  // bash counts -f in blocks of 1024 bytes (512 only in POSIX mode, which `bash -c` is not in).
  if (limits.fileSizeBytes) parts.push(`-f ${Math.floor(limits.fileSizeBytes / 1024)}`);
  if (limits.cpuSeconds) parts.push(`-t ${limits.cpuSeconds}`);
  return parts.length ? `ulimit -H -S ${parts.join(' ')}` : '';
}

/** The limits in words, for notes and the docs (`1024 processes, 4 GiB per process`). */
export function describeLimits(limits: SandboxLimits): string {
  const parts = [
    limits.processes && `${limits.processes} processes`,
    limits.memoryBytes && `${formatSize(limits.memoryBytes)} of memory per process`,
    limits.fileSizeBytes && `files up to ${formatSize(limits.fileSizeBytes)}`,
    limits.cpuSeconds && `${limits.cpuSeconds} s of CPU per process`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no limits';
}

export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['TiB', 1024 ** 4],
    ['GiB', GIB],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** `4g`, `512M`, `1.5g`, `1073741824`: bytes. */
export function byteSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?$/i.exec(text);
  if (!match) return undefined;
  const scale = { '': 1, k: 1024, m: 1024 ** 2, g: GIB, t: 1024 ** 4 }[
    match[2]!.toLowerCase() as '' | 'k' | 'm' | 'g' | 't'
  ];
  return Math.floor(Number(match[1]) * scale);
}

function integer(text: string): number | undefined {
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

function withoutUndefined(limits: SandboxLimits): SandboxLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)) as SandboxLimits;
}
