/**
 * A session's workdir as the worker touches it: every file operation — the tools', snapshots',
 * restores', the session files read at its start — goes through one of these, so none resolves a
 * path the session controls with the worker's privileges (see resolve-beneath.ts). The workdir
 * itself is opened once per use from its real path, every component `O_NOFOLLOW`: a link put in
 * place of the workdir or one of its parents is refused, not followed.
 */
import { type Dirent, fchmodSync, mkdirSync, readSync, rmdirSync, type Stats } from 'node:fs';
import { isAbsolute } from 'node:path';
import { DirectoryHandle } from './directory-handle';
import { type FileOwner, ownEntry, ownerFor } from './file-owner';
import { openRealDirectory } from './open-real-directory';
import { closeQuietly, fdPath, statOf } from './proc-fd';
import { openRegular, readWithin, type ReadLimits } from './read-regular';
import { type Location, release, resolveBeneath } from './resolve-beneath';
import { type FileContent, linkAtomically, removeIfPresent, writeAtomically } from './write-atomically';
import { outside, WorkdirRefusal } from './workdir-refusal';

/** Linux's limit on a path's length. */
const PATH_MAX = 4096;

/** Whether links are followed: in the last component, and on the way (see ResolveOptions). */
export interface Following {
  followLast?: boolean;
  followLinks?: boolean;
}

export class Workdir {
  private constructor(
    /** The workdir's real path. */
    readonly path: string,
    /** Its `O_PATH` descriptor: the root every resolution starts from. */
    private readonly fd: number,
    /** Who the files written here belong to (see file-owner.ts). */
    readonly owner: FileOwner | undefined,
  ) {}

  /** Opens the workdir at `path`, a real path: no component may be a symlink. */
  static open(path: string): Workdir {
    const fd = openRealDirectory(path);
    return new Workdir(`/${path.split('/').filter(Boolean).join('/')}`, fd, ownerFor(statOf(fd)));
  }

  /**
   * Creates the directory at `path` and the parents it lacks, each created and opened without
   * following links (a fork's new workdir), then opens it.
   */
  static create(path: string): Workdir {
    closeQuietly(openRealDirectory(path, { create: true }));
    return Workdir.open(path);
  }

  /** Runs `use` with the workdir open, and closes it. */
  static async using<T>(path: string, use: (workdir: Workdir) => Promise<T> | T): Promise<T> {
    const workdir = Workdir.open(path);
    try {
      return await use(workdir);
    } finally {
      workdir.close();
    }
  }

  close(): void {
    closeQuietly(this.fd);
  }

  /** The workdir's `O_PATH` descriptor, for a child process to inherit (a root worker's staged sandbox); it stays this Workdir's. */
  descriptor(): number {
    return this.fd;
  }

  /** The workdir's own stats (its owner is the sandbox's user). */
  stats(): Stats {
    return statOf(this.fd);
  }

  /**
   * The steps of a path as the model or a caller gives it: relative to the workdir, or absolute
   * inside it. Refused: NUL bytes, over-long paths, `~` (a home directory is not the workdir),
   * absolute paths elsewhere. `..` is resolved as the walk meets it, and may not climb out.
   */
  steps(requested: string): string[] {
    if (requested.includes('\0')) throw new WorkdirRefusal('The path contains a NUL byte; paths cannot contain one.');
    if (requested.length > PATH_MAX)
      throw new WorkdirRefusal(`The path is ${requested.length} characters long; paths are at most ${PATH_MAX}.`);
    if (/^~[^/]*(\/|$)/.test(requested)) throw outside(requested, this.path);
    if (!isAbsolute(requested)) return requested.split('/');
    if (requested !== this.path && !requested.startsWith(`${this.path}/`)) throw outside(requested, this.path);
    return requested.slice(this.path.length).split('/');
  }

  /** Resolves a path; the caller releases the location. */
  locate(
    requested: string,
    options: { followLast: boolean; followLinks?: boolean; createDirectories?: boolean; missingTail?: boolean },
  ): Location {
    return resolveBeneath({ root: this.fd, rootPath: this.path, requested }, this.steps(requested), {
      ...options,
      onDirectoryCreated: (parent, name) => ownEntry(parent, name, this.owner),
    });
  }

  /** The absolute real path a path names (links inside followed), whether or not it exists. */
  realPath(requested: string): string {
    const location = this.locate(requested, { followLast: true, missingTail: true });
    release(location);
    return this.absolute(location.relative);
  }

  /** `relative` (a canonical workdir path) as an absolute path. */
  absolute(relative: string): string {
    return relative === '' ? this.path : `${this.path}/${relative}`;
  }

  /** What a path is now (following links inside unless told not to); undefined when it does not exist. */
  stat(
    requested: string,
    { followLast = true, followLinks }: Following = {},
  ): (Stats & { relative: string }) | undefined {
    const location = this.locate(requested, { followLast, followLinks, missingTail: true });
    release(location);
    return location.stats ? Object.assign(location.stats, { relative: location.relative }) : undefined;
  }

  /** A regular file's bytes within limits; ENOENT when it does not exist, a refusal when it is not a regular file. */
  async readFile(requested: string, shown: string, limits: ReadLimits): Promise<{ data: Buffer; relative: string }> {
    const location = this.locate(requested, { followLast: true });
    try {
      if (location.fd === undefined)
        throw Object.assign(new Error(`ENOENT: no such file: ${shown}`), { code: 'ENOENT' });
      const { fd, stats } = openRegular(location.fd, shown);
      return { data: await readWithin(fd, stats, shown, limits), relative: location.relative };
    } finally {
      release(location);
    }
  }

  /**
   * The first `maxBytes` of a regular file and its whole size (instruction and settings files:
   * a huge one is never loaded); undefined when it does not exist; a refusal when it is not a
   * regular file (never opened then) or lies outside.
   */
  async readHead(
    requested: string,
    maxBytes: number,
  ): Promise<{ data: Buffer; size: number; relative: string } | undefined> {
    const location = this.locate(requested, { followLast: true, missingTail: true });
    try {
      if (location.fd === undefined) return undefined;
      const { fd, stats } = openRegular(location.fd, requested);
      try {
        const buffer = Buffer.alloc(Math.min(stats.size, maxBytes));
        let filled = 0;
        while (filled < buffer.length) {
          const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
          if (read === 0) break;
          filled += read;
        }
        return { data: buffer.subarray(0, filled), size: stats.size, relative: location.relative };
      } finally {
        closeQuietly(fd);
      }
    } finally {
      release(location);
    }
  }

  /**
   * A regular file opened for reading (the caller closes `fd`); undefined when it is missing or
   * not a regular file (with `followLast: false`, a link is not one).
   */
  openFile(
    requested: string,
    { followLast = true, followLinks }: Following = {},
  ): { fd: number; stats: Stats; relative: string } | undefined {
    const location = this.locate(requested, { followLast, followLinks });
    try {
      if (location.fd === undefined || !location.stats?.isFile()) return undefined;
      return { ...openRegular(location.fd, requested), relative: location.relative };
    } finally {
      release(location);
    }
  }

  /** A directory of the workdir, for walking; undefined when it is not there or not a directory. */
  directory(requested = ''): DirectoryHandle | undefined {
    const location = this.locate(requested, { followLast: true });
    try {
      if (location.fd === undefined || !location.stats?.isDirectory()) return undefined;
      const handle = new DirectoryHandle(location.fd, location.relative);
      location.fd = undefined;
      return handle;
    } finally {
      release(location);
    }
  }

  /** The entries of a directory. */
  list(requested = ''): Dirent[] {
    const handle = this.directory(requested);
    if (!handle) throw Object.assign(new Error(`ENOENT: no such directory: ${requested}`), { code: 'ENOENT' });
    try {
      return handle.entries();
    } finally {
      handle.close();
    }
  }

  /**
   * Writes a file atomically, creating its directories, through links inside the workdir as an
   * editor would (the target is written, the link stays), or, without `followLast`, replacing a
   * link of that name. Returns the path written, canonical.
   */
  async writeFile(
    requested: string,
    content: Omit<FileContent, 'owner'>,
    { followLast = true, followLinks }: Following = {},
  ): Promise<string> {
    const location = this.locate(requested, { followLast, followLinks, createDirectories: true });
    try {
      if (location.name === '' || location.stats?.isDirectory())
        throw Object.assign(new Error(`EISDIR: ${requested} is a directory`), { code: 'EISDIR' });
      await writeAtomically(location.parent, location.name, location.stats, { ...content, owner: this.owner });
      return location.relative;
    } finally {
      release(location);
    }
  }

  /** Puts a symlink at a path (replacing what is there, never following it). */
  writeLink(
    requested: string,
    target: string,
    temporaryName: string,
    { followLinks }: Pick<Following, 'followLinks'> = {},
  ): void {
    const location = this.locate(requested, { followLast: false, followLinks, createDirectories: true });
    try {
      if (location.name === '' || location.stats?.isDirectory())
        throw Object.assign(new Error(`EISDIR: ${requested} is a directory`), { code: 'EISDIR' });
      linkAtomically(location.parent, location.name, target, temporaryName, this.owner);
    } finally {
      release(location);
    }
  }

  /** Creates a directory and its parents (never through a link leading out). */
  makeDirectories(requested: string, { followLinks }: Pick<Following, 'followLinks'> = {}): void {
    const location = this.locate(requested, {
      followLast: followLinks !== false,
      followLinks,
      createDirectories: true,
    });
    try {
      if (location.stats?.isDirectory()) return;
      if (location.stats)
        throw Object.assign(new Error(`ENOTDIR: ${requested} is not a directory`), { code: 'ENOTDIR' });
      try {
        mkdirSync(fdPath(location.parent, location.name));
        ownEntry(location.parent, location.name, this.owner);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    } finally {
      release(location);
    }
  }

  /** Removes a file or link (the link itself, not its target); a name that is not there is fine. */
  remove(requested: string, { followLinks }: Pick<Following, 'followLinks'> = {}): void {
    const location = this.locate(requested, { followLast: false, followLinks, missingTail: true });
    try {
      if (location.name !== '' && location.stats && !location.stats.isDirectory())
        removeIfPresent(fdPath(location.parent, location.name));
    } finally {
      release(location);
    }
  }

  /** Removes an empty directory; one that holds anything, or is not there, stays as it is. */
  removeEmptyDirectory(requested: string, { followLinks }: Pick<Following, 'followLinks'> = {}): void {
    const location = this.locate(requested, { followLast: false, followLinks, missingTail: true });
    try {
      if (location.name === '' || !location.stats?.isDirectory()) return;
      rmdirSync(fdPath(location.parent, location.name));
    } catch (error) {
      if (!['ENOTEMPTY', 'EEXIST', 'ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? ''))
        throw error;
    } finally {
      release(location);
    }
  }

  /** Sets a regular file's permission bits (a link is left alone). */
  setMode(
    requested: string,
    mode: (current: number) => number,
    { followLinks }: Pick<Following, 'followLinks'> = {},
  ): void {
    const location = this.locate(requested, { followLast: false, followLinks, missingTail: true });
    try {
      if (location.fd === undefined || !location.stats?.isFile()) return;
      const { fd } = openRegular(location.fd, requested);
      try {
        fchmodSync(fd, mode(location.stats.mode) & 0o777);
      } finally {
        closeQuietly(fd);
      }
    } finally {
      release(location);
    }
  }
}
