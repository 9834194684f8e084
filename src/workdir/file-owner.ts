/**
 * Who the files a worker writes into a workdir belong to. A sandboxed command's files belong to
 * the sandbox's user, and so must the files the worker writes for the session (Write, Edit, a
 * rewind, a fork): a worker running as root gives them to the workdir's owner (the sandbox's
 * user on the host, see sandbox/sandbox-user.ts), never to root. A worker running as anyone else
 * cannot give files away and does not need to: its sandbox runs as itself.
 */
import { fchownSync, lchownSync, type Stats } from 'node:fs';
import { fdPath } from './proc-fd';

export interface FileOwner {
  uid: number;
  gid: number;
}

/** The owner for new files in a workdir whose root has these stats; undefined: leave them as created. */
export function ownerFor(root: Stats, workerUid = process.getuid?.() ?? -1): FileOwner | undefined {
  if (workerUid !== 0 || root.uid === 0) return undefined;
  return { uid: root.uid, gid: root.gid };
}

/** Gives a descriptor's file to `owner` (a no-op without one). */
export function ownDescriptor(fd: number, owner: FileOwner | undefined): void {
  if (owner) fchownSync(fd, owner.uid, owner.gid);
}

/** Gives `name` in a directory to `owner`, without following it if it is a link. */
export function ownEntry(parent: number, name: string, owner: FileOwner | undefined): void {
  if (owner) lchownSync(fdPath(parent, name), owner.uid, owner.gid);
}
