/**
 * Reading snapshots: every file of one, and what differs between two. Comparing skips every
 * subtree whose reference is the same on both sides, so two snapshots of a big repository that
 * differ in a few files cost a few node loads, not a walk of the whole tree.
 */
import type { FileChange } from '../shared/workspace';
import type { ContentStore } from '../store/content-store';
import { isLeaf, loadTree, sameLeaf, type LeafEntry, type TreeEntry } from './tree-node';

/** One path that differs: what it holds on each side (undefined where it does not exist). */
export interface EntryChange {
  path: string;
  from?: LeafEntry;
  to?: LeafEntry;
}

/**
 * Paths whose content, executable bit or link target differ, sorted by path. A path that is a
 * file on one side and a directory on the other appears as itself (added or deleted) plus every
 * file under the directory. A file swapped for a symlink is a modification.
 */
export async function diffTrees(
  store: ContentStore,
  fromRef: string | undefined,
  toRef: string | undefined,
  signal?: AbortSignal,
): Promise<EntryChange[]> {
  const changes: EntryChange[] = [];
  await diffDirectories(store, fromRef, toRef, '', changes, signal);
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export async function compareSnapshots(
  store: ContentStore,
  fromRef: string,
  toRef: string,
  signal?: AbortSignal,
): Promise<FileChange[]> {
  return (await diffTrees(store, fromRef, toRef, signal)).map(fileChangeOf);
}

export function fileChangeOf({ path, from, to }: EntryChange): FileChange {
  return { path, change: from === undefined ? 'added' : to === undefined ? 'deleted' : 'modified' };
}

/** Every file and symlink of a snapshot, by path relative to the workdir. */
export async function flattenSnapshot(
  store: ContentStore,
  ref: string,
  signal?: AbortSignal,
): Promise<Map<string, LeafEntry>> {
  const leaves = new Map<string, LeafEntry>();
  const visit = async (treeRef: string, prefix: string): Promise<void> => {
    signal?.throwIfAborted();
    for (const [name, entry] of await loadTree(store, treeRef)) {
      if (entry.t === 'd') await visit(entry.h, `${prefix}${name}/`);
      else leaves.set(prefix + name, entry);
    }
  };
  await visit(ref, '');
  return leaves;
}

async function diffDirectories(
  store: ContentStore,
  fromRef: string | undefined,
  toRef: string | undefined,
  prefix: string,
  changes: EntryChange[],
  signal: AbortSignal | undefined,
): Promise<void> {
  if (fromRef === toRef) return;
  signal?.throwIfAborted();
  const [from, to] = await Promise.all([entriesOf(store, fromRef), entriesOf(store, toRef)]);
  for (const name of new Set([...from.keys(), ...to.keys()])) {
    const before = from.get(name);
    const after = to.get(name);
    const path = prefix + name;
    const beforeTree = before?.t === 'd' ? before.h : undefined;
    const afterTree = after?.t === 'd' ? after.h : undefined;
    if (beforeTree !== undefined || afterTree !== undefined)
      await diffDirectories(store, beforeTree, afterTree, `${path}/`, changes, signal);
    const beforeLeaf = isLeaf(before) ? before : undefined;
    const afterLeaf = isLeaf(after) ? after : undefined;
    if ((beforeLeaf || afterLeaf) && !sameLeaf(beforeLeaf, afterLeaf))
      changes.push({ path, from: beforeLeaf, to: afterLeaf });
  }
}

async function entriesOf(store: ContentStore, ref: string | undefined): Promise<Map<string, TreeEntry>> {
  return ref === undefined ? new Map() : loadTree(store, ref);
}
