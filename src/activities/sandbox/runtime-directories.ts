/**
 * The directories a worker makes under the temporary directory for its sandboxes (the staging
 * point and identity files, the egress proxies' sockets). A worker removes its own when it
 * closes; one that was killed cannot, so the next worker to start removes those of workers that
 * are gone. Each name carries the worker's PID namespace and pid: a worker in another container
 * sharing /tmp has another namespace, and its directories are never taken for a dead one's.
 */
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type RuntimeKind = 'sandbox' | 'egress';

/** This process's PID namespace (the inode number of /proc/self/ns/pid), or undefined where there is none to read. */
function pidNamespace(): string | undefined {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    return undefined;
  }
}

/** `durable-agent-<kind>-<pid namespace>-<pid>-`: mkdtemp adds six characters. */
export function runtimePrefix(kind: RuntimeKind): string {
  return `durable-agent-${kind}-${pidNamespace() ?? 'unknown'}-${process.pid}-`;
}

const NAME = /^durable-agent-(?:sandbox|egress)-(\d+)-(\d+)-[A-Za-z0-9]{6}$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes the runtime directories of this namespace's workers that are no longer running; the
 * names removed. Only directories this user owns that nobody else may write to: their contents
 * were made by a worker of ours, and nothing in them can lead out (`rm` follows no link).
 */
export async function removeStaleRuntimeDirectories(parent: string = tmpdir()): Promise<string[]> {
  const namespace = pidNamespace();
  if (namespace === undefined) return [];
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of readdirSync(parent)) {
    const match = NAME.exec(name);
    if (!match || match[1] !== namespace || Number(match[2]) === process.pid || alive(Number(match[2]))) continue;
    const path = join(parent, name);
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats?.isDirectory() || stats.uid !== uid || (stats.mode & 0o022) !== 0) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
