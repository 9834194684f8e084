/**
 * Handing a workdir to the sandbox's user: a root worker's sandboxes run as an unprivileged user
 * (never as root: a set-uid binary made in a sandbox mapped to root would be root's on the host),
 * so a workdir that root owns — a clone the worker made, a directory made by tests or by hand —
 * is given to that user before its first command, every entry root owns, without following a
 * link. Entries someone else owns are left as they are.
 */
import { chownSync, lchownSync } from 'node:fs';
import type { DirectoryHandle } from './directory-handle';
import type { FileOwner } from './file-owner';
import { fdPath } from './proc-fd';
import type { Workdir } from './workdir';

/** Gives `owner` every entry of the workdir that root owns, the workdir itself first; the count of entries given. */
export function handOver(workdir: Workdir, owner: FileOwner): number {
  const root = workdir.directory('');
  if (!root) return 0;
  try {
    let given = 0;
    // The workdir itself, through its own descriptor (chown follows `/proc/self/fd/<n>` to it, and only to it).
    if (workdir.stats().uid === 0) {
      chownSync(fdPath(root.fd), owner.uid, owner.gid);
      given++;
    }
    return given + handOverEntries(root, owner);
  } finally {
    root.close();
  }
}

function handOverEntries(directory: DirectoryHandle, owner: FileOwner): number {
  let given = 0;
  for (const entry of directory.entries()) {
    const stats = directory.lstat(entry.name);
    if (!stats) continue;
    if (stats.uid === 0 && changeOwner(directory, entry.name, owner)) given++;
    if (!stats.isDirectory()) continue;
    const child = directory.subdirectory(entry.name);
    if (!child) continue;
    try {
      given += handOverEntries(child, owner);
    } finally {
      child.close();
    }
  }
  return given;
}

/** lchown of one entry; false when it went away meanwhile. */
function changeOwner(directory: DirectoryHandle, name: string, owner: FileOwner): boolean {
  try {
    lchownSync(fdPath(directory.fd, name), owner.uid, owner.gid);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
