/**
 * One side of a file's diff: its text, or why it has none to show (binary, over the size limit,
 * absent). A symlink diffs as its target, as git shows it.
 */
import type { ContentStore } from '../store/content-store';
import type { LeafEntry } from './tree-node';

/** Bytes looked at to tell binary from text: a NUL among them means binary (git's test). */
const BINARY_PROBE_BYTES = 8000;

/**
 * How long one file's line diff may take. Myers' diff is quadratic in the number of changes; a
 * rewritten 10 MB file must not stall the activity (it is reported as differing, without hunks).
 */
export const DIFF_TIMEOUT_MS = 5000;

export type DiffSide = { kind: 'absent' } | { kind: 'text'; text: string } | { kind: 'binary' } | { kind: 'big' };

export async function loadDiffSide(store: ContentStore, entry: LeafEntry | undefined): Promise<DiffSide> {
  if (entry === undefined) return { kind: 'absent' };
  if (entry.t === 'l') return { kind: 'text', text: entry.to };
  // A FIFO, socket or device has no content; it shows as binary, as git would show a file it cannot diff.
  if (entry.t === 's') return { kind: 'binary' };
  if (entry.big) return { kind: 'big' };
  const data = await store.getBytes(entry.h);
  if (data.subarray(0, BINARY_PROBE_BYTES).includes(0)) return { kind: 'binary' };
  return { kind: 'text', text: data.toString('utf8') };
}

export function textOf(side: DiffSide): string {
  return side.kind === 'text' ? side.text : '';
}

/** The mode git shows for an entry. */
export function gitModeOf(entry: LeafEntry): string {
  if (entry.t === 'l') return '120000';
  if (entry.t === 's') return '100644';
  return entry.x ? '100755' : '100644';
}

/** Only the changes whose path is one of `paths` or lies under one of them (all without `paths`). */
export function selectPaths<T extends { path: string }>(changes: T[], paths: string[] | undefined): T[] {
  if (paths === undefined) return changes;
  const wanted = paths.map((path) => path.replace(/^\.\/+/, '').replace(/\/+$/, ''));
  if (wanted.includes('') || wanted.includes('.')) return changes;
  return changes.filter(({ path }) => wanted.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)));
}
