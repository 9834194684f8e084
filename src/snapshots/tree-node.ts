/**
 * A snapshot is a git-like tree of JSON nodes in the content store, one node per directory.
 * Nodes are content-addressed: a directory that did not change serializes to the same JSON, so
 * it has the same reference and costs no write, and two snapshots can be compared by skipping
 * every subtree whose reference is the same on both sides.
 */
import { getJson, type ContentStore } from '../store/content-store';

/**
 * A regular file. `h` is the sha256 of its content (a content-store reference); `s`, `mt` and `i`
 * (size, mtime in ms, inode) let the next snapshot reuse the entry without reading the file.
 * `mt: 0` means "read it again next time" (see the racy-mtime guard in snapshot.ts).
 */
export interface FileEntry {
  t: 'f';
  h: string;
  s: number;
  /** Executable by its owner. */
  x?: true;
  mt: number;
  i: number;
  /**
   * Over the size limit: the store does not hold its content, and `h` is not a content reference.
   * Snapshots since the limit became AGENT_SNAPSHOT_MAX_FILE_BYTES record such a file by its
   * metadata (`meta:<size>:<mtime>:<inode>`, never read); older ones hold the content's hash.
   */
  big?: true;
}

/** A symbolic link, recorded as its target and never followed. */
export interface LinkEntry {
  t: 'l';
  to: string;
}

/**
 * A FIFO, socket or device: recorded as what it is, never opened or read (a FIFO would stall the
 * reader, a device could be anything). A restore cannot make one, and says so.
 */
export interface SpecialEntry {
  t: 's';
  k: 'fifo' | 'socket' | 'device';
}

export interface DirectoryEntry {
  t: 'd';
  h: string;
}

/** What a path holds in a snapshot once directories are flattened away. */
export type LeafEntry = FileEntry | LinkEntry | SpecialEntry;
export type TreeEntry = LeafEntry | DirectoryEntry;

export interface TreeNode {
  v: 1;
  /**
   * Sorted by name, so the same directory always serializes (and hashes) the same. (JavaScript
   * puts integer-like names such as `10` first, in numeric order: just as stable.)
   */
  entries: Record<string, TreeEntry>;
}

/** Entries in name order, the order a node is serialized in. */
export function treeNodeOf(entries: [string, TreeEntry][]): TreeNode {
  // Object.fromEntries defines own properties, so a file named `__proto__` is an entry like any other.
  return { v: 1, entries: Object.fromEntries(entries) };
}

/**
 * A node's entries as a Map: a plain object would answer `entries.constructor` for a file that
 * does not exist. Names are checked because paths are built from them and written to.
 */
export async function loadTree(store: ContentStore, ref: string): Promise<Map<string, TreeEntry>> {
  const node = await getJson<TreeNode>(store, ref);
  if (node?.v !== 1 || typeof node.entries !== 'object' || node.entries === null) {
    throw new Error(`${ref} is not a workspace snapshot tree`);
  }
  const entries = new Map(Object.entries(node.entries));
  for (const name of entries.keys()) {
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
      throw new Error(`Snapshot tree ${ref} holds an invalid file name: ${JSON.stringify(name)}`);
    }
  }
  return entries;
}

export function isLeaf(entry: TreeEntry | undefined): entry is LeafEntry {
  return entry !== undefined && entry.t !== 'd';
}

/**
 * Whether two leaves hold the same thing: content and executable bit, or link target. Size,
 * mtime and inode are bookkeeping for the next scan, not part of what a file is.
 */
export function sameLeaf(a: LeafEntry | undefined, b: LeafEntry | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.t === 'l') return b.t === 'l' && a.to === b.to;
  if (a.t === 's') return b.t === 's' && a.k === b.k;
  if (b.t !== 'f') return false;
  return a.h === b.h && Boolean(a.x) === Boolean(b.x);
}

/** Code-unit order: the same on every machine and locale, which a stable hash needs. */
export function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
