/**
 * Memory and process limits for a command's whole tree, where the operator gives the worker a
 * delegated cgroup v2 subtree (AGENT_SANDBOX_CGROUP): each command gets a cgroup of its own under
 * it with `memory.max` and `pids.max`, and its sandbox's first process is moved into it before
 * the command starts (bubblewrap waits on --block-fd until then), so everything the command
 * starts is inside. Without one, the per-process limits of sandbox-limits.ts are what holds.
 */
import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface CgroupSettings {
  /** The delegated cgroup's directory, e.g. /sys/fs/cgroup/durable-agent. */
  path: string;
  /** memory.max of one command, bytes. */
  memoryMax: number;
  /** pids.max of one command. */
  pidsMax: number;
}

/** Checks the cgroup once, at worker start: cgroup v2, writable, memory and pids available to children (enabled if need be). */
export async function checkCgroup(settings: CgroupSettings): Promise<void> {
  const where = `AGENT_SANDBOX_CGROUP=${settings.path}`;
  const controllers = await readFile(join(settings.path, 'cgroup.controllers'), 'utf8').catch(() => {
    throw new Error(`${where}: not a cgroup v2 directory (no cgroup.controllers)`);
  });
  for (const controller of ['memory', 'pids']) {
    if (!controllers.split(/\s+/).includes(controller))
      throw new Error(`${where}: the ${controller} controller is not delegated to it`);
  }
  const subtree = await readFile(join(settings.path, 'cgroup.subtree_control'), 'utf8');
  const missing = ['memory', 'pids'].filter((controller) => !subtree.split(/\s+/).includes(controller));
  if (missing.length) {
    await writeFile(
      join(settings.path, 'cgroup.subtree_control'),
      missing.map((controller) => `+${controller}`).join(' '),
    ).catch((error: Error) => {
      throw new Error(`${where}: cannot enable ${missing.join(', ')} for its children (${error.message})`);
    });
  }
  await access(join(settings.path, 'cgroup.procs')).catch(() => {
    throw new Error(`${where}: cgroup.procs is missing`);
  });
}

/** One command's cgroup. */
export class CommandCgroup {
  private constructor(readonly path: string) {}

  static async create(settings: CgroupSettings): Promise<CommandCgroup> {
    const path = join(settings.path, `command-${randomBytes(6).toString('hex')}`);
    await mkdir(path);
    await writeFile(join(path, 'memory.max'), String(settings.memoryMax));
    // Swap would let the command's memory grow past memory.max onto the disk.
    await writeFile(join(path, 'memory.swap.max'), '0').catch(() => {});
    await writeFile(join(path, 'pids.max'), String(settings.pidsMax));
    return new CommandCgroup(path);
  }

  /** Moves a process into the cgroup (its children from then on are born inside). */
  async add(pid: number): Promise<void> {
    await writeFile(join(this.path, 'cgroup.procs'), String(pid));
  }

  /**
   * Removes the cgroup once its processes are gone (they die with the sandbox's PID namespace;
   * the kernel may take a moment to reap them): a few tries, then left for the next start's sweep.
   */
  async remove(tries = 20): Promise<void> {
    for (let attempt = 0; attempt < tries; attempt++) {
      try {
        await rmdir(this.path);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return;
        if (code !== 'EBUSY') throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
}
