/**
 * Putting a snapshot back: into the session's own working tree (rewind), or into a fresh
 * directory (a copy of the workspace as it was at some turn).
 */
import type { MaterializeSnapshotOutput, RestoreWorkspaceInput, RestoreWorkspaceOutput } from '../shared/workspace';
import type { DirectoryHandle } from '../workdir/directory-handle';
import { Workdir } from '../workdir/workdir';
import type { ContentStore } from '../store/content-store';
import { applyChanges } from './apply-changes';
import { metadataHash, readOpenedFile } from './file-content';
import { isAgentTemporary, snapshotMaxFileBytes, snapshotOf } from './snapshot';
import { diffTrees, flattenSnapshot, type EntryChange } from './tree';
import { sameLeaf, type LeafEntry } from './tree-node';

export interface RestoreOptions extends Omit<RestoreWorkspaceInput, 'workdir'> {
  /** The size limit the session's snapshots are taken with. */
  maxFileBytes?: number;
  signal?: AbortSignal;
}

/** Paths named in the error for a directory that holds files the snapshot does not. */
const FOREIGN_PATHS_SHOWN = 20;

/**
 * Brings the working tree to `targetRef`. The tree as found is snapshotted first (against
 * `expectedRef`, the session's last snapshot), which keeps everything about to be overwritten in
 * the store under `currentRef`.
 *
 * An outside change is a path that differs from `expectedRef` (someone else changed it) AND from
 * the target (restoring would overwrite it). A path already at its target is no conflict: this is
 * what makes a restore that crashed half-way resumable, as the retry finds the files it already
 * restored "at target" rather than "changed by someone else". Refusing touches nothing.
 */
export async function restoreSnapshot(
  store: ContentStore,
  workdirPath: string,
  options: RestoreOptions,
): Promise<RestoreWorkspaceOutput> {
  return Workdir.using(workdirPath, (workdir) => restoreInto(store, workdir, options));
}

async function restoreInto(
  store: ContentStore,
  workdir: Workdir,
  options: RestoreOptions,
): Promise<RestoreWorkspaceOutput> {
  const { targetRef, expectedRef, force, maxFileBytes, signal } = options;
  const current = await snapshotOf(store, workdir, expectedRef, { maxFileBytes, signal });
  const toTarget = await diffTrees(store, current.ref, targetRef, signal);
  const differsFromTarget = new Set(toTarget.map(({ path }) => path));
  const outsideChanges = current.changes.filter(({ path }) => differsFromTarget.has(path));
  if (outsideChanges.length > 0 && !force) return { kind: 'refused', outsideChanges };
  const { filesChanged, notRestored } = await applyChanges(store, workdir, toTarget, signal);
  return { kind: 'restored', currentRef: current.ref, filesChanged, notRestored };
}

/**
 * Writes snapshot `ref` into `workdir`, a missing or empty directory. Resumable: a directory a
 * crashed run of the same materialization left is accepted, as everything in it is then part of
 * the snapshot; only what is missing or different is written. A directory holding anything the
 * snapshot does not is refused with an Error naming those paths (retrying cannot change that).
 */
export async function materializeSnapshot(
  store: ContentStore,
  workdirPath: string,
  ref: string,
  options: { signal?: AbortSignal; maxFileBytes?: number } = {},
): Promise<MaterializeSnapshotOutput> {
  const workdir = Workdir.create(workdirPath);
  try {
    return await materializeInto(store, workdir, ref, options);
  } finally {
    workdir.close();
  }
}

async function materializeInto(
  store: ContentStore,
  workdir: Workdir,
  ref: string,
  options: { signal?: AbortSignal; maxFileBytes?: number },
): Promise<MaterializeSnapshotOutput> {
  const { signal } = options;
  const target = await flattenSnapshot(store, ref, signal);
  const { present, foreign } = await listAgainst(workdir, target, {
    signal,
    maxFileBytes: options.maxFileBytes ?? snapshotMaxFileBytes(),
  });
  if (foreign.length > 0) {
    const more = foreign.length > FOREIGN_PATHS_SHOWN ? ` and ${foreign.length - FOREIGN_PATHS_SHOWN} more` : '';
    throw new Error(
      `Cannot materialize snapshot ${ref} into ${workdir.path}: the directory is not empty, and holds what the snapshot does not: ` +
        `${foreign.slice(0, FOREIGN_PATHS_SHOWN).join(', ')}${more}`,
    );
  }
  const changes: EntryChange[] = [];
  for (const [path, entry] of target) {
    const now = present.get(path);
    if (!sameLeaf(now, entry)) changes.push({ path, from: now, to: entry });
  }
  const { notRestored } = await applyChanges(store, workdir, changes, signal);
  return { files: target.size, notRestored };
}

/**
 * The files, links and special files in the directory at `workdirPath` that snapshot `ref` does
 * not record: what its ignore rules leave out (`node_modules/…`, build output, `.env`) and
 * whatever else the snapshot never saw; empty directories are no loss and are not named. Listing
 * only: no file is read.
 */
export async function untrackedPaths(
  store: ContentStore,
  workdirPath: string,
  ref: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const target = await flattenSnapshot(store, ref, signal);
  return Workdir.using(workdirPath, async (workdir) => {
    return (await listAgainst(workdir, target, { signal, maxFileBytes: 0, listOnly: true })).foreign;
  });
}

/**
 * What `workdir` holds at the snapshot's paths (files hashed, nothing stored; with `listOnly`,
 * nothing), and every path it holds that the snapshot does not: a directory the snapshot has no
 * file under is named once, as `dir/`. Our own temporary files are skipped (a crashed run's; the
 * retry reuses their names).
 */
async function listAgainst(
  workdir: Workdir,
  target: Map<string, LeafEntry>,
  options: { signal?: AbortSignal; maxFileBytes: number; listOnly?: boolean },
): Promise<{ present: Map<string, LeafEntry>; foreign: string[] }> {
  const directories = new Set<string>();
  for (const path of target.keys()) {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1))
      directories.add(path.slice(0, slash));
  }
  const present = new Map<string, LeafEntry>();
  const foreign: string[] = [];
  // With `listOnly`, a directory the snapshot has nothing under is entered: only the files in it count.
  const visit = async (directory: DirectoryHandle, known = true): Promise<void> => {
    options.signal?.throwIfAborted();
    for (const dirent of directory.entries()) {
      if (isAgentTemporary(dirent.name)) continue;
      const path = directory.pathOf(dirent.name);
      if (dirent.isDirectory()) {
        const inside = known && directories.has(path);
        const child = inside || options.listOnly ? directory.subdirectory(dirent.name) : undefined;
        if (!child) {
          foreign.push(`${path}/`);
          continue;
        }
        try {
          await visit(child, inside);
        } finally {
          child.close();
        }
      } else if (!known || !target.has(path)) {
        foreign.push(path);
      } else if (!options.listOnly) {
        const entry = await currentLeaf(directory, dirent.name, options.maxFileBytes);
        if (entry === undefined) foreign.push(path);
        else present.set(path, entry);
      }
    }
  };
  const root = workdir.directory('');
  if (!root) throw new Error(`${workdir.path} is not a directory`);
  try {
    await visit(root);
  } finally {
    root.close();
  }
  return { present, foreign: foreign.sort() };
}

/** A path's file, link or special file, as much of an entry as comparing needs (no content is stored). */
async function currentLeaf(
  directory: DirectoryHandle,
  name: string,
  maxFileBytes: number,
): Promise<LeafEntry | undefined> {
  const stats = directory.lstat(name);
  if (stats === undefined) return undefined;
  if (stats.isSymbolicLink()) {
    const to = directory.readlink(name);
    return to === undefined ? undefined : { t: 'l', to };
  }
  if (!stats.isFile()) return { t: 's', k: stats.isFIFO() ? 'fifo' : stats.isSocket() ? 'socket' : 'device' };
  const executable = (stats.mode & 0o100) !== 0;
  if (stats.size > maxFileBytes)
    return {
      t: 'f',
      h: metadataHash(stats),
      s: stats.size,
      ...(executable && { x: true as const }),
      mt: 0,
      i: stats.ino,
      big: true,
    };
  const opened = directory.openFile(name);
  if (!opened) return undefined;
  const content = await readOpenedFile(opened.fd, opened.stats);
  return { t: 'f', h: content.hash, s: content.size, ...(executable && { x: true as const }), mt: 0, i: stats.ino };
}
