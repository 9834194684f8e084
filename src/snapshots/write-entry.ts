/**
 * Putting one snapshot entry back on disk, atomically: a crash leaves either the old file or the
 * new one under the path, never a truncated mix, so a restore can always be retried. Every step
 * goes through the workdir's descriptors and refuses a link on the way: the snapshot never records
 * a path through a link, and following one (an ignored link to elsewhere, say) could lead out.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { Following, Workdir } from '../workdir/workdir';
import type { FileEntry, LinkEntry } from './tree-node';

/** How restores touch paths: never through a link, never following one in the last component. */
export const RESTORE_PATHS: Following = { followLast: false, followLinks: false };

/**
 * Writes a file or symlink under a temporary name beside it, then renames it over the path.
 * The temporary name is derived from the path and the entry, not random: a retry after a crash
 * between write and rename reuses (and so removes) the leftover instead of adding another.
 * Snapshots skip `.agent-restore` names, so a leftover is never recorded either.
 */
export async function writeEntry(
  workdir: Workdir,
  path: string,
  entry: FileEntry | LinkEntry,
  data?: Buffer,
): Promise<void> {
  const temporaryName = temporaryNameFor(basename(path), entry);
  if (entry.t === 'l') {
    workdir.writeLink(path, entry.to, temporaryName, RESTORE_PATHS);
    return;
  }
  if (data === undefined) throw new Error(`No content to write ${path} from`);
  // A fresh file with the mode git would use; the process umask applies as it does for git.
  await workdir.writeFile(
    path,
    { data, temporaryName, mode: entry.x ? 0o777 : 0o666, keepExisting: false },
    RESTORE_PATHS,
  );
}

/** Only the executable bit changed: as git does, execute where read is allowed, or nowhere. */
export function setExecutable(workdir: Workdir, path: string, executable: boolean): void {
  workdir.setMode(path, (mode) => (executable ? mode | ((mode & 0o444) >> 2) : mode & ~0o111), RESTORE_PATHS);
}

function temporaryNameFor(name: string, entry: FileEntry | LinkEntry): string {
  const tag = createHash('sha256')
    .update(entry.t === 'l' ? `l ${entry.to}` : `f ${entry.h} ${entry.x ? 'x' : ''}`)
    .digest('hex')
    .slice(0, 12);
  // A long name plus the suffixes would pass the 255-byte limit on a name.
  const stem = Buffer.byteLength(name) > 200 ? createHash('sha256').update(name).digest('hex').slice(0, 16) : name;
  return `.${stem}.${tag}.agent-restore`;
}
