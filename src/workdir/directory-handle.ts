/**
 * One directory of a workdir, held by its descriptor: what walkers (snapshots, Glob and Grep,
 * restores, handing a workdir over) use to list it and to reach its entries without ever
 * resolving more than one name the session controls, and never through a link.
 */
import { type Dirent, lstatSync, readdirSync, readlinkSync, type Stats } from 'node:fs';
import { closeQuietly, fdPath, openEntry, openSubdirectory, statOf } from './proc-fd';
import { openRegular } from './read-regular';
import { WorkdirRefusal } from './workdir-refusal';

/** Errors that mean the entry is not there as a usable thing any more: gone, or replaced by a link or a file. */
export function isGone(error: unknown): boolean {
  return (
    ['ENOENT', 'ENOTDIR', 'ELOOP', 'EACCES', 'EPERM', 'ENXIO'].includes((error as NodeJS.ErrnoException).code ?? '') ||
    error instanceof WorkdirRefusal
  );
}

export class DirectoryHandle {
  constructor(
    /** An `O_PATH | O_DIRECTORY` descriptor, owned by this handle. */
    readonly fd: number,
    /** The directory's path relative to the workdir ('' for the workdir). */
    readonly relative: string,
  ) {}

  /** The path of an entry of this directory, relative to the workdir. */
  pathOf(name: string): string {
    return this.relative === '' ? name : `${this.relative}/${name}`;
  }

  /** The entries, with their types as the directory records them (a snapshot of a moment: check before use). */
  entries(): Dirent[] {
    return readdirSync(fdPath(this.fd), { withFileTypes: true });
  }

  /** An entry's own stats (a link's, not its target's); undefined when it is gone. */
  lstat(name: string): Stats | undefined {
    try {
      return lstatSync(fdPath(this.fd, name));
    } catch (error) {
      if (isGone(error)) return undefined;
      throw error;
    }
  }

  /** A link's target, undefined when the entry is no longer a link. */
  readlink(name: string): string | undefined {
    try {
      return readlinkSync(fdPath(this.fd, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EINVAL' || isGone(error)) return undefined;
      throw error;
    }
  }

  /** A subdirectory, undefined when it is gone or is not a directory now (a link swapped in is never followed). */
  subdirectory(name: string): DirectoryHandle | undefined {
    try {
      return new DirectoryHandle(openSubdirectory(this.fd, name), this.pathOf(name));
    } catch (error) {
      if (isGone(error)) return undefined;
      throw error;
    }
  }

  /**
   * A regular file opened for reading, with its stats; undefined when it is gone or is not a
   * regular file now. A FIFO, socket or device is never opened.
   */
  openFile(name: string): { fd: number; stats: Stats } | undefined {
    let pathFd: number | undefined;
    try {
      pathFd = openEntry(this.fd, name);
      if (!statOf(pathFd).isFile()) return undefined;
      return openRegular(pathFd, this.pathOf(name));
    } catch (error) {
      if (isGone(error)) return undefined;
      throw error;
    } finally {
      closeQuietly(pathFd);
    }
  }

  close(): void {
    closeQuietly(this.fd);
  }
}
