/**
 * A command's cgroup, against a directory laid out as a delegated cgroup v2 subtree is (this
 * machine may have none to delegate: the files are what the kernel would read).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkCgroup, CommandCgroup } from '../../../src/sandbox/cgroup';
import { scratchDir } from '../../support/paths';

function delegated(controllers: string, subtree = ''): string {
  const path = scratchDir('cgroup');
  writeFileSync(join(path, 'cgroup.controllers'), controllers);
  writeFileSync(join(path, 'cgroup.subtree_control'), subtree);
  writeFileSync(join(path, 'cgroup.procs'), '');
  return path;
}

test('the delegated cgroup must be v2 with memory and pids; they are enabled for its children', async () => {
  await expect(checkCgroup({ path: scratchDir('not-a-cgroup'), memoryMax: 1, pidsMax: 1 })).rejects.toThrow(
    'not a cgroup v2 directory',
  );
  await expect(checkCgroup({ path: delegated('cpu io'), memoryMax: 1, pidsMax: 1 })).rejects.toThrow(
    'the memory controller is not delegated to it',
  );
  const path = delegated('cpu memory pids');
  await checkCgroup({ path, memoryMax: 1, pidsMax: 1 });
  expect(readFileSync(join(path, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids');
});

test('each command gets a cgroup with its limits, and the process goes in before it runs; removed after', async () => {
  const path = delegated('memory pids', 'memory pids');
  const cgroup = await CommandCgroup.create({ path, memoryMax: 8 * 1024 ** 3, pidsMax: 512 });
  expect(readFileSync(join(cgroup.path, 'memory.max'), 'utf8')).toBe(String(8 * 1024 ** 3));
  expect(readFileSync(join(cgroup.path, 'memory.swap.max'), 'utf8')).toBe('0');
  expect(readFileSync(join(cgroup.path, 'pids.max'), 'utf8')).toBe('512');
  await cgroup.add(4242);
  expect(readFileSync(join(cgroup.path, 'cgroup.procs'), 'utf8')).toBe('4242');
  // A real cgroup's files go with the rmdir; here they are plain files, so they go first.
  rmSync(cgroup.path, { recursive: true });
  await cgroup.remove();
  expect(existsSync(cgroup.path)).toBe(false);
});
