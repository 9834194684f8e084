/**
 * The session's turn log, as pure functions over plain data: a checkpoint of the conversation
 * at the end of every turn and the workspace snapshots taken after turns that could change
 * files. Rewind, fork and diff read it. No Temporal APIs: unit-tested without a server.
 *
 * A checkpoint holds a reference to the stored conversation, never the messages: the latest turn's
 * messages wait in `pending` only until the next activity that stores the conversation (model
 * call, context edit or compaction) stores them as a node of their own and returns its reference
 * (`turnEnd` / `checkpointRef`). So the log stays small in memory and in what a continue-as-new
 * carries, and nothing enters history twice.
 */
import type { DiffRange, DiffRequest, ForkPoint, RewindRequest } from '../../shared/contract';
import type { ConversationMessage } from '../../shared/conversation';
import { MAX_FORK_READ_STATE_FILES } from '../../shared/input';
import type { SnapshotRecord } from '../../shared/workspace';
import { estimateTokens, forgetShownInstructions, type LoopState, PER_TURN_RESET } from './loop-state';
import {
  absoluteReadState,
  latestReads,
  readsOfTurn,
  readStateAt,
  relativeReadState,
  type ReadStateChanges,
} from './read-state';

export interface Checkpoint {
  turn: number;
  /** The stored conversation up to the turn, and the turn's messages not stored in it yet. */
  conversationRef: string | null;
  messageCount: number;
  pending?: ConversationMessage[];
  /** The estimate of the request's tokens at that point. */
  contextTokens: number;
  /** The turn ended with a message for the model (tool results, or the first prompt). */
  endsWithUser: boolean;
  /** What the turn changed in the read-state (see read-state.ts); absent in checkpoints from before it was kept. */
  reads?: ReadStateChanges;
}

export interface TurnLog {
  checkpoints: Checkpoint[];
  snapshots: SnapshotRecord[];
  /**
   * The session's first snapshot (its files as it started: a `repo` session's clone), set only
   * once a rewind left the files as they were and made them turn 0's: `snapshots[0]` is then no
   * longer what the session started from, and its changes (the result, the branch) must not
   * forget what it did before that rewind.
   */
  start?: string;
}

export const EMPTY_TURN_LOG: TurnLog = { checkpoints: [], snapshots: [] };

/** The end of turn `state.turnCount` (or of an earlier line of turns, which a rewind abandoned, from it on). */
export function recordCheckpoint(log: TurnLog, state: LoopState, endsWithUser: boolean): TurnLog {
  const checkpoint: Checkpoint = {
    turn: state.turnCount,
    conversationRef: state.conversationRef,
    messageCount: state.messageCount,
    pending: state.pendingMessages,
    contextTokens: estimateTokens(state),
    endsWithUser,
    reads: readsOfTurn(log.checkpoints, state.turnCount, relativeReadState(state.fileStates, state.workdir)),
  };
  return { ...log, checkpoints: [...log.checkpoints.filter((entry) => entry.turn < checkpoint.turn), checkpoint] };
}

/**
 * How many of the pending messages close the last checkpoint's turn, when the next activity that
 * stores the conversation should store them apart (undefined: nothing to store apart).
 */
export function turnEndFor(log: TurnLog, state: LoopState): number | undefined {
  const last = log.checkpoints.at(-1);
  if (!last?.pending || last.pending.length === 0) return undefined;
  if (last.conversationRef !== state.conversationRef || state.pendingMessages.length < last.pending.length)
    return undefined;
  return last.pending.length;
}

/** The activity stored the last checkpoint's messages as `checkpointRef`. */
export function checkpointStored(log: TurnLog, checkpointRef: string | undefined): TurnLog {
  const last = log.checkpoints.at(-1);
  if (!checkpointRef || !last?.pending) return log;
  const stored: Checkpoint = {
    ...last,
    conversationRef: checkpointRef,
    messageCount: last.messageCount + last.pending.length,
  };
  delete stored.pending;
  return { ...log, checkpoints: [...log.checkpoints.slice(0, -1), stored] };
}

/** A snapshot of turn `record.turn`; a second one in the same turn (stop hooks after tools) replaces the first. */
export function recordSnapshot(log: TurnLog, record: SnapshotRecord): TurnLog {
  const same = log.snapshots.find((entry) => entry.turn === record.turn);
  const merged = same ? { ...record, filesChanged: same.filesChanged + record.filesChanged } : record;
  return { ...log, snapshots: [...log.snapshots.filter((entry) => entry.turn < record.turn), merged] };
}

export function latestSnapshot(log: TurnLog): SnapshotRecord | undefined {
  return log.snapshots.at(-1);
}

/** The files as of turn `turn`: the last snapshot taken at or before it. */
export function snapshotAt(log: TurnLog, turn: number): SnapshotRecord | undefined {
  return [...log.snapshots].reverse().find((entry) => entry.turn <= turn);
}

export function checkpointAt(log: TurnLog, turn: number): Checkpoint | undefined {
  return log.checkpoints.find((entry) => entry.turn === turn);
}

export interface RewindContext {
  currentTurn: number;
  interactive: boolean;
  /** The session ended (or is ending): nothing is left to rewind. */
  finished: boolean;
  rewinding: boolean;
}

export type NormalizedRewind = Required<RewindRequest>;

/** Why a rewind cannot be done (the update's validator rejects it before it enters history), or the request with its defaults. */
export function checkRewind(
  log: TurnLog,
  request: RewindRequest | undefined,
  context: RewindContext,
): { ok: true; request: NormalizedRewind } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message });
  if (!request || typeof request !== 'object') return fail('rewind takes {"turn": N, "files"?: true, "force"?: false}');
  const { turn, files = true, force = false } = request;
  if (!Number.isInteger(turn) || turn < 0) return fail('turn: must be a whole number ≥ 0');
  if (typeof files !== 'boolean') return fail('files: must be true or false');
  if (typeof force !== 'boolean') return fail('force: must be true or false');
  if (context.finished) return fail('the session has ended');
  if (context.rewinding) return fail('a rewind is already in progress');
  if (turn > context.currentTurn)
    return fail(`turn ${turn} has not happened yet (the session is at turn ${context.currentTurn})`);
  const checkpoint = checkpointAt(log, turn);
  if (!checkpoint) {
    const known = log.checkpoints.map((entry) => entry.turn);
    return fail(
      `turn ${turn} has no checkpoint (turns that can be rewound to: ${known.length ? known.join(', ') : 'none'})`,
    );
  }
  if (files && !snapshotAt(log, turn))
    return fail(`turn ${turn} has no workspace snapshot; rewind with files: false to take back the conversation only`);
  if (!checkpoint.endsWithUser && !context.interactive) {
    return fail(
      `turn ${turn} ended without tool calls: a non-interactive session would have nothing to do after it (rewind to a turn with tool results)`,
    );
  }
  return { ok: true, request: { turn, files, force } };
}

/**
 * The file states after a rewind to `turn` (sessions since `read-state-in-checkpoints`): the
 * turn's read-state, with the files put back or not. It never claims more than the model saw: a
 * file read only after the turn is gone from the conversation, so it counts as not read. With the
 * files left as they are (conversation only), a file changed after the turn keeps the hash the
 * model read, not the one on disk: the Edit tool compares that hash with the file's content, so
 * such a file fails "modified since it was last read" and is read again, while an unchanged one
 * can be edited. A turn whose checkpoint did not keep the read-state gives none (read again).
 */
export function rewoundFileStates(log: TurnLog, turn: number, workdir: string): Record<string, string> {
  const readState = readStateAt(log.checkpoints, turn);
  return readState ? absoluteReadState(readState, workdir) : {};
}

/**
 * The loop state just after the checkpoint's turn: its conversation, its recovery budgets fresh.
 * `fileStates`: the read-state to go on with (see rewoundFileStates); without it (sessions
 * before it), a rewind that put files back forgets every read and one that did not keeps them.
 */
export function rewoundState(
  state: LoopState,
  checkpoint: Checkpoint,
  { filesRestored, fileStates }: { filesRestored: boolean; fileStates?: Record<string, string> },
): LoopState {
  return {
    ...forgetShownInstructions(state),
    ...PER_TURN_RESET,
    turnCount: checkpoint.turn,
    conversationRef: checkpoint.conversationRef,
    messageCount: checkpoint.messageCount,
    pendingMessages: checkpoint.pending ?? [],
    contextTokens: checkpoint.contextTokens,
    contextEditedAt: undefined,
    lastTransition: 'rewind',
    stopHookActive: false,
    consecutiveStopHookBlocks: 0,
    // The files changed under the session: what it read most recently may be other files now.
    ...(filesRestored ? { fileStates: {}, recentFiles: [] } : {}),
    ...(fileStates ? { fileStates } : {}),
  };
}

/**
 * The log after a rewind to `turn`: later turns are gone from this line. With the files left as
 * they were (`currentRef`), they become turn `turn`'s files, so a later rewind there finds them.
 */
export function rewoundLog(log: TurnLog, turn: number, { currentRef }: { currentRef?: string }): TurnLog {
  const checkpoints = log.checkpoints.filter((entry) => entry.turn <= turn);
  const earlier = log.snapshots.filter((entry) => entry.turn <= turn);
  const kept = log.start === undefined ? {} : { start: log.start };
  if (currentRef === undefined) return { checkpoints, snapshots: earlier, ...kept };
  const before = earlier.filter((entry) => entry.turn < turn);
  const first = log.snapshots[0];
  // The first snapshot is being replaced (a rewind to turn 0 that keeps the files): remember it.
  const start = log.start ?? (before.length === 0 && first && first.ref !== currentRef ? first.ref : undefined);
  return {
    checkpoints,
    snapshots: [...before, { turn, ref: currentRef, filesChanged: 0 }],
    ...(start === undefined ? {} : { start }),
  };
}

/** The snapshot the session started from: its first, unless a rewind replaced that one. */
export function startSnapshot(log: TurnLog): string | undefined {
  return log.start ?? log.snapshots[0]?.ref;
}

/** What a fork of turn `turn` starts from, or undefined when that turn has no checkpoint or snapshot. */
export function forkPoint(log: TurnLog, turn: number, model: string): ForkPoint | undefined {
  const checkpoint = checkpointAt(log, turn);
  const snapshot = snapshotAt(log, turn);
  if (!checkpoint || !snapshot) return undefined;
  const readState = readStateAt(log.checkpoints, turn);
  return {
    turn,
    snapshotRef: snapshot.ref,
    conversationRef: checkpoint.conversationRef,
    messageCount: checkpoint.messageCount,
    pending: checkpoint.pending ?? [],
    contextTokens: checkpoint.contextTokens,
    endsWithUser: checkpoint.endsWithUser,
    model,
    ...(readState ? { readState: latestReads(readState, MAX_FORK_READ_STATE_FILES) } : {}),
  };
}

/** The snapshots query `diff` compares: by default the first and the last. */
export function diffRange(log: TurnLog, request: DiffRequest = {}): DiffRange {
  const first = log.snapshots[0];
  const last = latestSnapshot(log);
  if (!first || !last) throw new Error('this session has no workspace snapshots');
  const from = request.fromTurn === undefined ? first : snapshotAt(log, request.fromTurn);
  const to = request.toTurn === undefined ? last : snapshotAt(log, request.toTurn);
  if (!from) throw new Error(`no snapshot at or before turn ${request.fromTurn}`);
  if (!to) throw new Error(`no snapshot at or before turn ${request.toTurn}`);
  return {
    fromTurn: request.fromTurn ?? from.turn,
    toTurn: request.toTurn ?? to.turn,
    fromRef: from.ref,
    toRef: to.ref,
  };
}

/**
 * A fork's first state: the original's conversation up to the fork's turn, then the new
 * instruction, and what it had read by then, under the fork's workdir (its files are the turn's).
 */
export function forkedState(state: LoopState, fork: Omit<ForkPoint, 'model'>): LoopState {
  return {
    ...state,
    ...(fork.readState ? { fileStates: absoluteReadState(fork.readState, state.workdir) } : {}),
    turnCount: fork.turn,
    conversationRef: fork.conversationRef,
    messageCount: fork.messageCount,
    pendingMessages: [...fork.pending, ...state.pendingMessages],
    contextTokens: fork.contextTokens,
  };
}

/** The fork's first message: where it comes from, where it works now, and what to do. */
export function forkPrompt(fork: { workflowId: string; turn: number }, workdir: string, instruction: string): string {
  return `${forkIntro(fork, workdir)}\n\n${instruction}`;
}

/** What a fork's prompt says before its instruction. */
export function forkIntro(fork: { workflowId: string; turn: number }, workdir: string): string {
  return `This session was forked from session ${fork.workflowId} at turn ${fork.turn}, with its files as they were then, into ${workdir}: work there, not in the original directory.`;
}
