/**
 * A killed worker's sandbox directories are removed by the next worker to start: only a dead
 * worker's of this PID namespace, owned by this user and writable by nobody else.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeStaleRuntimeDirectories, runtimePrefix } from '../../../../src/activities/sandbox/runtime-directories';
import { scratchDir } from '../../../support/paths';

const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))![1]!;
/** Whether a name is there, a link not followed. */
const present = (path: string) => lstatSync(path, { throwIfNoEntry: false }) !== undefined;
/** A pid that was a process's and is no longer any. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

function made(parent: string, name: string, mode = 0o711): string {
  const path = join(parent, name);
  mkdirSync(path);
  chmodSync(path, mode);
  writeFileSync(join(path, '1.sock'), '');
  return path;
}

test("a dead worker's directories go; a live worker's, this worker's, another namespace's and others' stay", async () => {
  const parent = scratchDir('runtime-dirs');
  const dead = deadPid();
  const sleeper = spawn('sleep', ['30']);
  try {
    const gone = [made(parent, `durable-agent-egress-${namespace}-${dead}-abc123`), made(parent, `durable-agent-sandbox-${namespace}-${dead}-def456`, 0o755)];
    const kept = [
      made(parent, `durable-agent-egress-${namespace}-${sleeper.pid}-abc123`),
      made(parent, `${runtimePrefix('sandbox')}ghi789`, 0o755),
      made(parent, `durable-agent-egress-1${namespace}-${dead}-abc123`),
      made(parent, `durable-agent-egress-${namespace}-${dead}-open00`, 0o777),
      made(parent, `durable-agent-stage-${dead}`),
    ];
    // A link named like a dead worker's directory is neither followed nor removed.
    const target = made(parent, 'elsewhere');
    symlinkSync(target, join(parent, `durable-agent-sandbox-${namespace}-${dead}-link00`));

    expect((await removeStaleRuntimeDirectories(parent)).sort()).toEqual(gone.map((path) => path.slice(parent.length + 1)).sort());
    for (const path of gone) expect(present(path)).toBe(false);
    for (const path of [...kept, target, join(target, '1.sock'), join(parent, `durable-agent-sandbox-${namespace}-${dead}-link00`)]) expect(present(path)).toBe(true);
  } finally {
    sleeper.kill();
  }
});
