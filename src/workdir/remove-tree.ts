/**
 * Removing a directory tree a session wrote (a writing sub-agent's worktree once merged), with
 * the worker's privileges and without trusting anything in it: every entry is reached from its
 * directory's descriptor (one name the session controls resolved at a time, never through a
 * link), links and special files are unlinked, never followed or opened, and a directory is
 * entered only by an `O_NOFOLLOW | O_DIRECTORY` open. What cannot be removed stays: removal is
 * best effort, and says whether the tree is gone.
 */
import { rmdirSync, unlinkSync } from 'node:fs';
import { DirectoryHandle } from './directory-handle';
import { closeQuietly, fdPath } from './proc-fd';
import { openRealDirectory } from './open-real-directory';

/** Deeper than this, a tree is left as it is (each level holds a descriptor while it is emptied). */
export const REMOVE_TREE_MAX_DEPTH = 256;

/**
 * Removes the directory at `path` (a real path: no component may be a link) and everything in
 * it. True when it is gone (or was not there), false when something in it could not be removed.
 */
export function removeTree(path: string): boolean {
  let fd: number;
  try {
    fd = openRealDirectory(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
  const root = new DirectoryHandle(fd, '');
  let emptied: boolean;
  try {
    emptied = empty(root, 0);
  } finally {
    closeQuietly(fd);
  }
  return emptied && removed(() => rmdirSync(path));
}

/** Removes what `directory` holds; true when nothing is left. */
function empty(directory: DirectoryHandle, depth: number): boolean {
  if (depth >= REMOVE_TREE_MAX_DEPTH) return false;
  let all = true;
  for (const dirent of directory.entries()) {
    const path = fdPath(directory.fd, dirent.name);
    if (!dirent.isDirectory()) {
      all = removed(() => unlinkSync(path)) && all;
      continue;
    }
    const child = directory.subdirectory(dirent.name);
    // Swapped for a link or a file since the listing: unlinked, not entered.
    if (!child) all = removed(() => unlinkSync(path)) && all;
    else all = emptyAndClose(child, depth + 1) && removed(() => rmdirSync(path)) && all;
  }
  return all;
}

function emptyAndClose(directory: DirectoryHandle, depth: number): boolean {
  try {
    return empty(directory, depth);
  } finally {
    directory.close();
  }
}

/** Runs an unlink or rmdir: true when done or when the entry is gone already (a read-only directory's entries stay). */
function removed(remove: () => void): boolean {
  try {
    remove();
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
