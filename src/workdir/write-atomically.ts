/**
 * Replacing a file atomically inside a pinned directory: a temporary file is created beside it
 * (`O_CREAT | O_EXCL | O_NOFOLLOW` through the directory's descriptor, so nothing planted under
 * that name is written through), filled, given its mode and owner through its own descriptor,
 * and renamed over the name, which never follows a link either. A crash leaves the old file or
 * the new one, never a mix; the temporary name is the caller's, so a retry reuses it.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  openSync,
  renameSync,
  type Stats,
  symlinkSync,
  unlinkSync,
  write,
} from 'node:fs';
import { promisify } from 'node:util';
import { type FileOwner, ownDescriptor, ownEntry } from './file-owner';
import { fdPath } from './proc-fd';

const writeAsync = promisify(write);
const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

export interface FileContent {
  data: string | Buffer;
  /** The temporary file's name beside the target (the caller's, so a retry after a crash reuses it). */
  temporaryName: string;
  /** Mode of a new file (the umask applies), default 0o666 as for any file a program creates. */
  mode?: number;
  /** Keep an existing file's permission bits and owner (default), or create the file afresh (a restore). */
  keepExisting?: boolean;
  /** Who a new file belongs to (a root worker: the workdir's owner). */
  owner?: FileOwner;
}

/**
 * Writes `name` in `parent`. `existing`: what the name holds now (a regular file keeps its
 * permission bits and owner, as an editor saving it would; set-id bits are never carried over).
 */
export async function writeAtomically(
  parent: number,
  name: string,
  existing: Stats | undefined,
  content: FileContent,
): Promise<void> {
  const temporary = fdPath(parent, content.temporaryName);
  removeIfPresent(temporary);
  const fd = openSync(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, content.mode ?? 0o666);
  try {
    try {
      const data = typeof content.data === 'string' ? Buffer.from(content.data, 'utf8') : content.data;
      for (let written = 0; written < data.length;)
        written += (await writeAsync(fd, data, written, data.length - written, written)).bytesWritten;
      const keep = existing?.isFile() && content.keepExisting !== false ? existing : undefined;
      if (keep) fchmodSync(fd, keep.mode & 0o777);
      if (keep && process.getuid?.() === 0) fchownSync(fd, keep.uid, keep.gid);
      else ownDescriptor(fd, content.owner);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, fdPath(parent, name));
  } catch (error) {
    removeIfPresent(temporary);
    throw error;
  }
}

/** A symlink put in place atomically (created under the temporary name, renamed over `name`). */
export function linkAtomically(
  parent: number,
  name: string,
  target: string,
  temporaryName: string,
  owner?: FileOwner,
): void {
  const temporary = fdPath(parent, temporaryName);
  removeIfPresent(temporary);
  symlinkSync(target, temporary);
  try {
    ownEntry(parent, temporaryName, owner);
    renameSync(temporary, fdPath(parent, name));
  } catch (error) {
    removeIfPresent(temporary);
    throw error;
  }
}

/** unlink, not minding a name that is not there (unlink never follows a link: it removes the link). */
export function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
