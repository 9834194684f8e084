/**
 * The transcript as the store keeps it: a chain of immutable nodes, each holding what one step of
 * the session added (its transcript entries, and how its list of snapshots changed) and a
 * reference to the node before. The workflow hands each step's additions to an activity it runs
 * anyway (the next model call, the session's close), which stores them as one node and returns
 * its reference: no activity input grows with the session. The chain goes on across
 * continue-as-new, so a reader with no worker sees the whole session.
 *
 * Sessions closed before the chain stored one object `{ entries, snapshots }` (no `prev`):
 * readers take both (activities/store/transcript-chain.ts).
 */
import type { TranscriptEntry } from './contract';
import type { SnapshotRecord } from './workspace';

/**
 * How the session's list of snapshots changed since the node before: its first `keep` records
 * stay, then come `add`. A rewind drops later turns' records; a second snapshot in the same turn
 * replaces the turn's record.
 */
export interface SnapshotChange {
  keep: number;
  add: SnapshotRecord[];
}

/** What the session added since `prev` (null: the session's first node). */
export interface TranscriptAppend {
  prev: string | null;
  entries: TranscriptEntry[];
  snapshots?: SnapshotChange;
}

/** One stored node: exactly the append, so a retried activity writes the same object. */
export type TranscriptNode = TranscriptAppend;

const sameRecord = (a: SnapshotRecord, b: SnapshotRecord) =>
  a.turn === b.turn && a.ref === b.ref && a.filesChanged === b.filesChanged;

/** The change from `stored` to `current` (undefined: none). */
export function snapshotChange(
  stored: readonly SnapshotRecord[],
  current: readonly SnapshotRecord[],
): SnapshotChange | undefined {
  let keep = 0;
  while (keep < stored.length && keep < current.length && sameRecord(stored[keep]!, current[keep]!)) keep++;
  if (keep === stored.length && keep === current.length) return undefined;
  return { keep, add: current.slice(keep) };
}

export function applySnapshotChange(
  list: readonly SnapshotRecord[],
  change: SnapshotChange | undefined,
): SnapshotRecord[] {
  return change ? [...list.slice(0, change.keep), ...change.add] : [...list];
}

/** One change doing what `first` did and then `second` (made against the list `first` left). */
export function composeSnapshotChanges(
  first: SnapshotChange | undefined,
  second: SnapshotChange | undefined,
): SnapshotChange | undefined {
  if (!first || !second) return first ?? second;
  if (second.keep <= first.keep) return second;
  return { keep: first.keep, add: [...first.add.slice(0, second.keep - first.keep), ...second.add] };
}
