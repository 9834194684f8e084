/**
 * Bringing the working tree from one state to another, path by path: removals first (so a file
 * can become a directory and a directory a file), then the directories they emptied, then writes.
 * Every step is idempotent, so a run that crashed half-way can simply be run again, and every
 * step goes through the workdir's descriptors (src/workdir/): a directory swapped for a link
 * while a restore runs is refused, never written through.
 */
import type { Workdir } from '../workdir/workdir';
import type { ContentStore } from '../store/content-store';
import { forEachLimited } from './parallel';
import type { EntryChange } from './tree';
import type { LeafEntry } from './tree-node';
import { RESTORE_PATHS, setExecutable, writeEntry } from './write-entry';

/** Files written at once: enough to overlap I/O, few enough to stay clear of open-file limits. */
const WRITE_CONCURRENCY = 8;

export interface AppliedChanges {
  /** Files written, deleted, re-linked or re-moded. */
  filesChanged: number;
  /** Paths left as they are (sorted): see `applyChanges`. */
  notRestored: string[];
}

/**
 * Applies `changes` (from: what the path holds now, to: what it must hold). Content the store
 * does not hold is never destroyed, nor invented: a path is left as it is, and listed in
 * `notRestored`, when its current file is over the size limit (deleting or overwriting it would
 * lose it for good), when its target file is (there is nothing to write), when its target is a
 * FIFO, socket or device (nothing makes one), or when a directory holding unrecorded (ignored)
 * files stands where a file must go.
 */
export async function applyChanges(
  store: ContentStore,
  workdir: Workdir,
  changes: EntryChange[],
  signal?: AbortSignal,
): Promise<AppliedChanges> {
  const notRestored: string[] = [];
  const modeChanges: EntryChange[] = [];
  const removals: EntryChange[] = [];
  const writes: EntryChange[] = [];
  for (const change of changes) {
    const { from, to } = change;
    if (from?.t === 'f' && to?.t === 'f' && from.h === to.h) modeChanges.push(change);
    else if (isBig(from) || isBig(to) || to?.t === 's') notRestored.push(change.path);
    else if (to === undefined) removals.push(change);
    else writes.push(change);
  }
  let filesChanged = 0;

  await forEachLimited(modeChanges, WRITE_CONCURRENCY, async ({ path, to }) => {
    signal?.throwIfAborted();
    setExecutable(workdir, path, to?.t === 'f' && to.x === true);
    filesChanged++;
  });
  await forEachLimited(removals, WRITE_CONCURRENCY, async ({ path }) => {
    signal?.throwIfAborted();
    workdir.remove(path, RESTORE_PATHS);
    filesChanged++;
  });
  removeEmptiedDirectories(workdir, removals, writes);

  await forEachLimited(writes, WRITE_CONCURRENCY, async ({ path, to }) => {
    signal?.throwIfAborted();
    const entry = to as Exclude<LeafEntry, { t: 's' }>;
    try {
      if (workdir.stat(path, RESTORE_PATHS)?.isDirectory()) {
        notRestored.push(path);
        return;
      }
      await writeEntry(workdir, path, entry, entry.t === 'f' ? await store.getBytes(entry.h) : undefined);
    } catch (error) {
      // A link or a file where the snapshot has a directory (one it does not record: ignored).
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR')
        throw new Error(`Cannot restore ${path}: ${(error as Error).message}`);
      throw error;
    }
    filesChanged++;
  });
  return { filesChanged, notRestored: notRestored.sort() };
}

function isBig(entry: LeafEntry | undefined): boolean {
  return entry?.t === 'f' && entry.big === true;
}

/**
 * Removes the directories that removals left empty, deepest first, up to the workdir. rmdir
 * only removes an empty directory, so one that still holds an ignored file (or `.git`) stays.
 * Directories a write is about to fill are left alone.
 */
function removeEmptiedDirectories(workdir: Workdir, removals: EntryChange[], writes: EntryChange[]): void {
  const needed = new Set(writes.flatMap(({ path }) => ancestorsOf(path)));
  const candidates = new Set(
    removals.flatMap(({ path }) => ancestorsOf(path)).filter((directory) => !needed.has(directory)),
  );
  const deepestFirst = [...candidates].sort((a, b) => b.split('/').length - a.split('/').length);
  for (const directory of deepestFirst) workdir.removeEmptyDirectory(directory, RESTORE_PATHS);
}

/** `a/b/c` → `a/b`, `a`. */
function ancestorsOf(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join('/'));
}
