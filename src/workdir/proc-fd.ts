/**
 * Directory descriptors as paths. Node has no `openat()`, but Linux resolves
 * `/proc/self/fd/<n>` to the very file descriptor `n` refers to, without walking any path: so
 * `/proc/self/fd/<dir>/<name>` is `openat(dir, name)`, and with `O_NOFOLLOW` the kernel resolves
 * exactly one component the session controls, never a symlink. Walking a path one component at a
 * time this way (see resolve-beneath.ts) is what `openat2(RESOLVE_BENEATH)` does in the kernel.
 */
import { closeSync, constants, openSync, type Stats, fstatSync } from 'node:fs';

/**
 * Linux's `O_PATH`: a descriptor that names a file without opening it. A FIFO, socket or device
 * opened this way is not opened at all (no driver is called, no writer is woken), so the type can
 * be checked with `fstat` before anything reads it. Node passes open flags to the kernel as given.
 */
export const O_PATH = 0o10000000;

const { O_DIRECTORY, O_NOFOLLOW, O_RDONLY, O_NONBLOCK } = constants;

/** The path that means "this descriptor" (`name` empty) or "`name` in this directory descriptor". */
export function fdPath(fd: number, name = ''): string {
  return name === '' ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** `openat(dir, name, O_PATH | O_NOFOLLOW)`: the entry itself, a symlink included; throws as open(2) does. */
export function openEntry(dir: number, name: string): number {
  return openSync(fdPath(dir, name), O_PATH | O_NOFOLLOW);
}

/** `openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW)`: ENOTDIR for a symlink or anything but a directory. */
export function openSubdirectory(dir: number, name: string): number {
  return openSync(fdPath(dir, name), O_PATH | O_DIRECTORY | O_NOFOLLOW);
}

/** A second descriptor of what `fd` names (Node has no dup()). */
export function reopenPath(fd: number): number {
  return openSync(fdPath(fd), O_PATH);
}

/**
 * Opens for reading the file an `O_PATH` descriptor names. Only call it once `fstat` said it is a
 * regular file: the descriptor pins the inode, so it cannot have become something else since.
 * (Non-blocking all the same: a read of a regular file never waits for a writer.)
 */
export function openForReading(pathFd: number): number {
  return openSync(fdPath(pathFd), O_RDONLY | O_NONBLOCK);
}

export function statOf(fd: number): Stats {
  return fstatSync(fd);
}

export function closeQuietly(fd: number | undefined): void {
  if (fd === undefined || fd < 0) return;
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** Whether this system resolves `/proc/self/fd` as Linux does: the worker refuses to start otherwise. */
export function procFdWorks(): boolean {
  let root: number | undefined;
  let child: number | undefined;
  try {
    root = openSync('/', O_PATH | O_DIRECTORY);
    child = openSubdirectory(root, 'proc');
    return statOf(child).isDirectory();
  } catch {
    return false;
  } finally {
    closeQuietly(child);
    closeQuietly(root);
  }
}
