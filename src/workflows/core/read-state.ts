/**
 * The read-state a checkpoint keeps: which files the session had read (or written) by the end of
 * a turn, and the content hash it saw. Edit and Write refuse a file the session has not read, or
 * whose content differs from the hash it saw; a rewind or a fork puts this state back with the
 * turn's files, so an Edit of a file the model read before the checkpoint works again.
 *
 * Paths are relative to the workdir: a fork works in another directory and a session that moved
 * to another host in another path, and the same files keep their entries. A checkpoint holds only
 * what its turn changed (`reads`), so the turn log grows with the reads, not turns × files; the
 * state at a turn is the checkpoints up to it folded together. Pure functions over plain data.
 */

/** File (relative to the workdir) → sha256 (hex) of its content as the session last read or wrote it. */
export type ReadState = Record<string, string>;

/** What one turn changed in the read-state: a path's new hash, or null when the session forgot it (a rewind). */
export type ReadStateChanges = Record<string, string | null>;

/** The part of a checkpoint this module reads (checkpoints.ts keeps the rest). */
export interface ReadStateCheckpoint {
  turn: number;
  /** Absent in checkpoints recorded (or carried from a run) before checkpoints kept the read-state. */
  reads?: ReadStateChanges;
}

/** The session's file states (absolute paths) as paths relative to `workdir`; others are left out. */
export function relativeReadState(fileStates: Record<string, string>, workdir: string): ReadState {
  const prefix = `${workdir}/`;
  const entries = Object.entries(fileStates).filter(([path]) => path.startsWith(prefix) && path.length > prefix.length);
  return Object.fromEntries(entries.map(([path, hash]) => [path.slice(prefix.length), hash]));
}

/** A read-state as file states under `workdir`. */
export function absoluteReadState(readState: ReadState, workdir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(readState).map(([path, hash]) => [`${workdir}/${path}`, hash]));
}

/**
 * The read-state at the end of turn `turn`, or undefined when a checkpoint up to it did not keep
 * its changes (nothing is known then, and nothing may be claimed as read).
 */
export function readStateAt(checkpoints: readonly ReadStateCheckpoint[], turn: number): ReadState | undefined {
  // A Map, not an object: a file may be called `__proto__`.
  const state = new Map<string, string>();
  for (const checkpoint of checkpoints) {
    if (checkpoint.turn > turn) continue;
    if (!checkpoint.reads) return undefined;
    for (const [path, hash] of Object.entries(checkpoint.reads)) {
      // Deleted first, so the order is that of the latest change (see latestReads).
      state.delete(path);
      if (hash !== null) state.set(path, hash);
    }
  }
  return Object.fromEntries(state);
}

/**
 * At most `limit` entries, those the session read or wrote last (a fork's input stays small; a
 * file left out only has to be read again).
 */
export function latestReads(readState: ReadState, limit: number): ReadState {
  const entries = Object.entries(readState);
  return entries.length <= limit ? readState : Object.fromEntries(entries.slice(-limit));
}

/** What turn `turn` changed: `current` against the state of the checkpoints before it. */
export function readsOfTurn(
  checkpoints: readonly ReadStateCheckpoint[],
  turn: number,
  current: ReadState,
): ReadStateChanges {
  const before = new Map(Object.entries(readStateAt(checkpoints, turn - 1) ?? {}));
  const now = new Map(Object.entries(current));
  const changed = [...now].filter(([path, hash]) => before.get(path) !== hash);
  const forgotten = [...before.keys()].filter((path) => !now.has(path)).map((path) => [path, null] as const);
  return Object.fromEntries([...changed, ...forgotten]);
}
