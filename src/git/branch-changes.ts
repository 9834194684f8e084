/**
 * What a session's commit changes over its base commit, from its snapshots: a deletion for each
 * path gone, a blob for each file or symlink added or changed. The snapshots went through the
 * Workdir (no link followed, `.git` entries never recorded: a planted gitfile or a nested
 * repository is plain files there), so the commit holds no gitlink and nothing outside the
 * workdir. What git cannot hold is listed instead, with the reason.
 */
import type { NotCommitted } from '../shared/repository';
import type { Workdir } from '../workdir/workdir';
import type { ContentStore } from '../store/content-store';
import { diffTrees, flattenSnapshot } from '../snapshots/tree';
import type { LeafEntry } from '../snapshots/tree-node';
import { blobWrite } from './blob-sources';
import type { BlobWrite } from './fast-import';

export interface BranchChanges {
  deletions: string[];
  writes: BlobWrite[];
  notCommitted: NotCommitted[];
}

const SPECIAL_KINDS = { fifo: 'a FIFO', socket: 'a socket', device: 'a device' } as const;

/**
 * Why a path may not be committed, or undefined. A `.git` component (in any case, as git itself
 * refuses it: `.GIT` is `.git` on macOS and Windows) would be a repository's own files in every
 * checkout of the branch. Snapshots never record one; this holds whatever a snapshot says.
 */
export function pathProblem(path: string): string | undefined {
  const parts = path.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0')))
    return 'not a plain relative path';
  if (parts.some((part) => /^\.git[. ]*$/i.test(part) || /^git~\d+$/i.test(part)))
    return 'a path with a .git component is never committed';
  return undefined;
}

/** The changes between the session's first snapshot (the base commit's files) and its last. */
export async function changesBetween(
  store: ContentStore,
  workdir: () => Workdir,
  fromRef: string,
  toRef: string,
  signal?: AbortSignal,
): Promise<BranchChanges> {
  const changes: BranchChanges = { deletions: [], writes: [], notCommitted: [] };
  for (const { path, from, to } of await diffTrees(store, fromRef, toRef, signal)) {
    if (to === undefined && from?.t === 's')
      changes.notCommitted.push({
        path,
        reason: `was ${SPECIAL_KINDS[from.k]}, which git cannot hold: nothing to delete`,
      });
    else if (to === undefined) add(changes, path, undefined);
    else add(changes, path, { store, workdir, entry: to });
  }
  return changes;
}

/**
 * Without the session's snapshot references (an activity scheduled by workflow code from before
 * they were passed): the workdir's files now, in a snapshot taken through the Workdir like every
 * other, over the base commit. The base's files the snapshot lacks are deleted only when the
 * workdir has nothing at their path: one still there was left out by the ignore rules (tracked,
 * yet ignored) and stays as the base has it, as `git add --all` would keep it. Gitlinks of the
 * base stay unless a file is written beneath them.
 */
export async function changesOverBase(
  store: ContentStore,
  workdir: () => Workdir,
  snapshotRef: string,
  basePaths: readonly string[],
  signal?: AbortSignal,
): Promise<BranchChanges> {
  const changes: BranchChanges = { deletions: [], writes: [], notCommitted: [] };
  const leaves = await flattenSnapshot(store, snapshotRef, signal);
  for (const path of basePaths) if (!leaves.has(path) && !presentIn(workdir(), path)) add(changes, path, undefined);
  for (const [path, entry] of [...leaves].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    add(changes, path, { store, workdir, entry });
  return changes;
}

function add(
  changes: BranchChanges,
  path: string,
  to: { store: ContentStore; workdir: () => Workdir; entry: LeafEntry } | undefined,
): void {
  const problem = pathProblem(path);
  if (problem) changes.notCommitted.push({ path, reason: problem });
  else if (to === undefined) changes.deletions.push(path);
  else if (to.entry.t === 's')
    changes.notCommitted.push({
      path,
      reason: `${SPECIAL_KINDS[to.entry.k]}: git cannot hold one, so the branch keeps what the base commit has there`,
    });
  else changes.writes.push(blobWrite(to.store, to.workdir, path, to.entry));
}

/** Whether the workdir has a file, link or special file at `path` itself (no link followed on the way). */
function presentIn(workdir: Workdir, path: string): boolean {
  try {
    const stats = workdir.stat(path, { followLast: false, followLinks: false });
    return stats !== undefined && !stats.isDirectory();
  } catch {
    return false;
  }
}
