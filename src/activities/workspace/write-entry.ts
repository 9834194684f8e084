/**
 * Putting one snapshot entry back on disk, atomically: a crash leaves either the old file or the
 * new one under the path, never a truncated mix, so a restore can always be retried.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { LeafEntry } from './tree-node';

/**
 * The parent directories of `path` (relative to the workdir), created as needed. A parent that is
 * a symlink or a file is refused: the snapshot never records paths through a symlink, and
 * following one (an ignored link to elsewhere, say) would write outside the workdir.
 * `verified` remembers directories already checked during one restore.
 */
export async function ensureParentDirectories(workdir: string, path: string, verified: Set<string>): Promise<void> {
  const parts = path.split('/').slice(0, -1);
  let relative = '';
  for (const part of parts) {
    relative = relative === '' ? part : `${relative}/${part}`;
    if (verified.has(relative)) continue;
    const absolute = join(workdir, relative);
    const info = await lstat(absolute).catch(() => undefined);
    if (info === undefined) {
      // EEXIST: created by a parallel write meanwhile; the lstat below checks what it is.
      await mkdir(absolute).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      if (!(await lstat(absolute)).isDirectory()) throw notADirectory(path, relative);
    } else if (!info.isDirectory()) {
      throw notADirectory(path, relative);
    }
    verified.add(relative);
  }
}

/**
 * Writes a file or symlink under a temporary name beside it, then renames it over the path.
 * The temporary name is derived from the path and the entry, not random: a retry after a crash
 * between write and rename reuses (and so removes) the leftover instead of adding another.
 * Snapshots skip `.agent-restore` names, so a leftover is never recorded either.
 */
export async function writeEntry(absolute: string, entry: LeafEntry, data?: Buffer): Promise<void> {
  const temporary = temporaryPathFor(absolute, entry);
  await unlinkIfPresent(temporary);
  if (entry.t === 'l') {
    await symlink(entry.to, temporary);
  } else {
    if (data === undefined) throw new Error(`No content to write ${absolute} from`);
    // Exclusive create with the mode git would use; the process umask applies as it does for git.
    await writeFile(temporary, data, { flag: 'wx', mode: entry.x ? 0o777 : 0o666 });
  }
  await rename(temporary, absolute);
}

/** Only the executable bit changed: as git does, execute where read is allowed, or nowhere. */
export async function setExecutable(absolute: string, executable: boolean): Promise<void> {
  const { mode } = await lstat(absolute);
  await chmod(absolute, executable ? mode | ((mode & 0o444) >> 2) : mode & ~0o111);
}

export async function unlinkIfPresent(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

function temporaryPathFor(absolute: string, entry: LeafEntry): string {
  const name = basename(absolute);
  const tag = createHash('sha256')
    .update(entry.t === 'l' ? `l ${entry.to}` : `f ${entry.h} ${entry.x ? 'x' : ''}`)
    .digest('hex')
    .slice(0, 12);
  // A long name plus the suffixes would pass the 255-byte limit on a name.
  const stem = Buffer.byteLength(name) > 200 ? createHash('sha256').update(name).digest('hex').slice(0, 16) : name;
  return join(dirname(absolute), `.${stem}.${tag}.agent-restore`);
}

function notADirectory(path: string, parent: string): Error {
  return new Error(`Cannot restore ${path}: ${parent} is not a directory (a symlink or a file the snapshot does not record)`);
}
