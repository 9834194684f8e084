/**
 * The three-way merge of two snapshots that share a base: a writing sub-agent's changes (theirs,
 * its worktree's final snapshot) brought into its parent's workspace (ours), against the fork
 * point (base). Only paths the child changed are looked at. A path only the child changed takes
 * the child's version; a text file both changed is merged by lines (diff3's algorithm over two
 * Myers diffs): the hunks that do not overlap apply, and where they do the parent's lines stay and
 * the hunk is reported. Anything else both changed differently is a conflict, the parent's
 * version kept. The result is a plan: changes to apply, the merged files' content already stored.
 */
import { diffArrays } from 'diff';
import type { MergeConflict, MergeConflictHunk } from '../shared/worktrees';
import type { ContentStore } from '../store/content-store';
import { DIFF_TIMEOUT_MS } from './diff-content';
import { diffTrees, type EntryChange } from './tree';
import { sameLeaf, type FileEntry, type LeafEntry } from './tree-node';

/** Files larger than this are not merged by lines: a conflict when both sides changed them. */
export const MERGE_MAX_TEXT_BYTES = 4 * 1024 * 1024;

export interface MergeSnapshotsInput {
  /** The fork point. */
  baseRef: string;
  /** The parent's files now: what stays where the two conflict. */
  oursRef: string;
  /** The child's files. */
  theirsRef: string;
  signal?: AbortSignal;
}

export interface MergePlan {
  /** What to apply to the parent's workdir: `from` is the parent's entry, `to` the merged one. Sorted by path. */
  changes: EntryChange[];
  /** The paths of `changes`. */
  merged: string[];
  /** Sorted by path; every hunk and line of each (the activity cuts what it reports). */
  conflicts: MergeConflict[];
}

interface PathOutcome {
  change?: EntryChange;
  conflict?: MergeConflict;
}

export async function mergeSnapshots(store: ContentStore, input: MergeSnapshotsInput): Promise<MergePlan> {
  const { baseRef, oursRef, theirsRef, signal } = input;
  const [ours, theirs] = await Promise.all([
    diffTrees(store, baseRef, oursRef, signal),
    diffTrees(store, baseRef, theirsRef, signal),
  ]);
  const oursByPath = new Map(ours.map(({ path, to }) => [path, to]));
  const changes: EntryChange[] = [];
  const conflicts: MergeConflict[] = [];
  // diffTrees sorts by path: so are the changes and conflicts.
  for (const { path, from: base, to } of theirs) {
    signal?.throwIfAborted();
    const mine = oursByPath.has(path) ? oursByPath.get(path) : base;
    const { change, conflict } = await mergePath(store, path, { base, ours: mine, theirs: to });
    if (change) changes.push(change);
    if (conflict) conflicts.push(conflict);
  }
  return { changes, merged: changes.map(({ path }) => path), conflicts };
}

interface Sides {
  base: LeafEntry | undefined;
  ours: LeafEntry | undefined;
  theirs: LeafEntry | undefined;
}

async function mergePath(store: ContentStore, path: string, { base, ours, theirs }: Sides): Promise<PathOutcome> {
  if (sameLeaf(ours, theirs)) return {};
  if (sameLeaf(ours, base)) {
    // Only the child changed it: its version, when the store can write it (not a big or special file).
    if (appliable(ours) && appliable(theirs)) return { change: { path, from: ours, to: theirs } };
    return { conflict: { path, why: 'not_text', hunks: [] } };
  }
  // Both changed it (base exists here: two sides that added a path cannot both lack it).
  if (ours === undefined || theirs === undefined) return { conflict: { path, why: 'changed_and_deleted', hunks: [] } };
  const texts = await textsOf(store, [base, ours, theirs]);
  if (texts === undefined || ours.t !== 'f' || theirs.t !== 'f')
    return { conflict: { path, why: 'not_text', hunks: [] } };
  const [baseText, oursText, theirsText] = texts;
  const { text, hunks, gaveUp } = mergeText(baseText, oursText, theirsText);
  // The executable bit merged too: the parent's where it changed it, the child's otherwise.
  const executable = base?.t === 'f' && Boolean(ours.x) === Boolean(base.x) ? Boolean(theirs.x) : Boolean(ours.x);
  const conflict: MergeConflict | undefined =
    hunks.length > 0 || gaveUp ? { path, why: 'both_changed', hunks } : undefined;
  if (text === oursText && executable === Boolean(ours.x)) return conflict ? { conflict } : {};
  const bytes = Buffer.from(text, 'utf8');
  const merged: FileEntry = {
    t: 'f',
    h: await store.putBytes(bytes),
    s: bytes.length,
    ...(executable && { x: true as const }),
    mt: 0,
    i: 0,
  };
  return { change: { path, from: ours, to: merged }, ...(conflict && { conflict }) };
}

/** Whether applyChanges can put this entry in place of another, or another in its place. */
function appliable(entry: LeafEntry | undefined): boolean {
  return entry === undefined || entry.t === 'l' || (entry.t === 'f' && entry.big !== true);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The three sides' text (an absent side is empty), or undefined when any is not a small UTF-8 text file. */
async function textsOf(store: ContentStore, entries: (LeafEntry | undefined)[]): Promise<string[] | undefined> {
  const texts: string[] = [];
  for (const entry of entries) {
    if (entry === undefined) {
      texts.push('');
      continue;
    }
    if (entry.t !== 'f' || entry.big || entry.s > MERGE_MAX_TEXT_BYTES) return undefined;
    const bytes = await store.getBytes(entry.h);
    if (bytes.includes(0)) return undefined;
    try {
      texts.push(UTF8.decode(bytes));
    } catch {
      return undefined;
    }
  }
  return texts;
}

/**
 * Lines with their ends, so that joining them gives the text back byte for byte: a last line
 * without a newline stays without one, and `\r\n` stays `\r\n`.
 */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * The line merge: clean regions applied, conflicting ones left as ours and reported. Lines the
 * three share at the start and the end are set aside first (they cannot conflict). A merge whose
 * diffs take longer than DIFF_TIMEOUT_MS (a rewritten huge file) keeps ours whole: one conflict
 * without hunks.
 */
export function mergeText(
  baseText: string,
  oursText: string,
  theirsText: string,
): { text: string; hunks: MergeConflictHunk[]; gaveUp?: true } {
  const [base, ours, theirs] = [splitLines(baseText), splitLines(oursText), splitLines(theirsText)];
  let head = 0;
  const shortest = Math.min(base.length, ours.length, theirs.length);
  while (head < shortest && base[head] === ours[head] && base[head] === theirs[head]) head++;
  let tail = 0;
  const at = (lines: string[]) => lines[lines.length - 1 - tail];
  while (tail < shortest - head && at(base) === at(ours) && at(base) === at(theirs)) tail++;
  const middle = (lines: string[]) => lines.slice(head, lines.length - tail);

  const regions = diff3Regions(middle(ours), middle(base), middle(theirs));
  if (regions === undefined) return { text: oursText, hunks: [], gaveUp: true };
  const result = ours.slice(0, head);
  const hunks: MergeConflictHunk[] = [];
  for (const region of regions) {
    if ('ok' in region) {
      result.push(...region.ok);
      continue;
    }
    const { a, o, b } = region;
    if (sameLines(a, o) || sameLines(a, b)) result.push(...b);
    else if (sameLines(b, o)) result.push(...a);
    else {
      hunks.push({ line: result.length + 1, base: o.map(shown), ours: a.map(shown), theirs: b.map(shown) });
      result.push(...a);
    }
  }
  result.push(...ours.slice(ours.length - tail));
  return { text: result.join(''), hunks };
}

/** Where one side differs from the base: `oLength` base lines from `oStart` became `length` lines from `start`. */
interface SideHunk {
  side: 'a' | 'b';
  oStart: number;
  oLength: number;
  start: number;
  length: number;
}

type Region = { ok: string[] } | { a: string[]; o: string[]; b: string[] };

/**
 * diff3 (Khanna, Kunal and Pierce, "A Formal Investigation of Diff3", 2007; as node-diff3 and GNU
 * diff3 do it): the hunks of both sides against the base, in base order; hunks that overlap or
 * touch form one unstable region (a conflict unless the sides agree), a hunk alone is taken as
 * is. The two diffs are the `diff` package's Myers diff, linear in the lines for few changes and
 * bounded in time (undefined when it gives up).
 */
function diff3Regions(a: string[], o: string[], b: string[]): Region[] | undefined {
  const ofA = sideHunks(o, a, 'a');
  const ofB = sideHunks(o, b, 'b');
  if (ofA === undefined || ofB === undefined) return undefined;
  const hunks = [...ofA, ...ofB].sort((x, y) => x.oStart - y.oStart);
  const regions: Region[] = [];
  let offset = 0;
  for (let index = 0; index < hunks.length;) {
    const group = [hunks[index++]!];
    const oStart = group[0]!.oStart;
    let oEnd = oStart + group[0]!.oLength;
    while (index < hunks.length && hunks[index]!.oStart <= oEnd) {
      const next = hunks[index++]!;
      oEnd = Math.max(oEnd, next.oStart + next.oLength);
      group.push(next);
    }
    if (oStart > offset) regions.push({ ok: o.slice(offset, oStart) });
    offset = oEnd;
    if (group.length === 1) {
      const [only] = group as [SideHunk];
      regions.push({ ok: (only.side === 'a' ? a : b).slice(only.start, only.start + only.length) });
      continue;
    }
    const span = (side: 'a' | 'b', lines: string[]) => spanOf(group, side, lines, o, [oStart, oEnd]);
    regions.push({ a: span('a', a), o: o.slice(oStart, oEnd), b: span('b', b) });
  }
  if (o.length > offset) regions.push({ ok: o.slice(offset) });
  return regions;
}

/** One side's lines over the base's region [oStart, oEnd): its hunks there, widened by the base lines around them. */
function spanOf(group: SideHunk[], side: 'a' | 'b', lines: string[], o: string[], [oStart, oEnd]: number[]): string[] {
  const mine = group.filter((hunk) => hunk.side === side);
  if (mine.length === 0) return o.slice(oStart, oEnd);
  const first = mine[0]!;
  const last = mine[mine.length - 1]!;
  const start = first.start - (first.oStart - oStart!);
  const end = last.start + last.length + (oEnd! - (last.oStart + last.oLength));
  return lines.slice(start, end);
}

/** The hunks of `lines` against `o`, or undefined when the diff took too long. */
function sideHunks(o: string[], lines: string[], side: 'a' | 'b'): SideHunk[] | undefined {
  const parts = diffArrays(o, lines, { timeout: DIFF_TIMEOUT_MS });
  if (parts === undefined) return undefined;
  const hunks: SideHunk[] = [];
  let oIndex = 0;
  let index = 0;
  let current: SideHunk | undefined;
  for (const part of parts) {
    const count = part.value.length;
    if (part.added || part.removed) {
      current ??= { side, oStart: oIndex, oLength: 0, start: index, length: 0 };
      if (part.added) {
        current.length += count;
        index += count;
      } else {
        current.oLength += count;
        oIndex += count;
      }
      continue;
    }
    if (current) hunks.push(current);
    current = undefined;
    oIndex += count;
    index += count;
  }
  if (current) hunks.push(current);
  return hunks;
}

function sameLines(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((line, index) => line === b[index]);
}

/** A line as a conflict shows it: without its end. */
function shown(line: string): string {
  return line.replace(/\r?\n$/, '');
}
