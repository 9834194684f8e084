/**
 * Removing a directory tree a session wrote (a writing sub-agent's worktree once merged), with
 * the worker's privileges and without trusting anything in it: every entry is reached from its
 * directory's descriptor (one name the session controls resolved at a time, never through a
 * link), links and special files are unlinked, never followed or opened, and a directory is
 * entered only by an `O_NOFOLLOW | O_DIRECTORY` open. The tree itself is opened from its parent's
 * descriptor and removed through it. What cannot be removed (or listed) stays: removal is best
 * effort, never throws, and says whether the tree is gone.
 */
import { rmdirSync, unlinkSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DirectoryHandle } from './directory-handle';
import { openRealDirectory } from './open-real-directory';
import { closeQuietly, fdPath, openSubdirectory } from './proc-fd';

/** Deeper than this, a tree is left as it is (each level holds a descriptor while it is emptied). */
export const REMOVE_TREE_MAX_DEPTH = 256;
/** Entries removed between two turns of the event loop: a big tree never holds up heartbeats. */
const ENTRIES_PER_TURN = 500;

/**
 * Removes the directory at `path` (a real path: no component may be a link) and everything in
 * it. True when it is gone (or was not there), false when something in it could not be removed.
 */
export async function removeTree(path: string): Promise<boolean> {
  let parent: number;
  try {
    parent = openRealDirectory(dirname(path));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
  try {
    const name = basename(path);
    let root: DirectoryHandle;
    try {
      root = new DirectoryHandle(openSubdirectory(parent, name), '');
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
    const emptied = await emptyAndClose(root, 0, { entries: 0 });
    return emptied && removed(() => rmdirSync(fdPath(parent, name)));
  } finally {
    closeQuietly(parent);
  }
}

/** Entries reached so far, counted over the whole walk. */
interface Walk {
  entries: number;
}

/** Removes what `directory` holds; true when nothing is left. */
async function empty(directory: DirectoryHandle, depth: number, walk: Walk): Promise<boolean> {
  if (depth >= REMOVE_TREE_MAX_DEPTH) return false;
  let entries;
  try {
    entries = directory.entries();
  } catch {
    return false;
  }
  let all = true;
  for (const dirent of entries) {
    if (++walk.entries % ENTRIES_PER_TURN === 0) await nextTurn();
    const path = fdPath(directory.fd, dirent.name);
    const child = dirent.isDirectory() ? directory.subdirectory(dirent.name) : undefined;
    // Not a directory, or swapped for a link or a file since the listing: unlinked, not entered.
    if (!child) all = removed(() => unlinkSync(path)) && all;
    else all = (await emptyAndClose(child, depth + 1, walk)) && removed(() => rmdirSync(path)) && all;
  }
  return all;
}

async function emptyAndClose(directory: DirectoryHandle, depth: number, walk: Walk): Promise<boolean> {
  try {
    return await empty(directory, depth, walk);
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
