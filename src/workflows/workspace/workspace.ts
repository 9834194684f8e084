/**
 * The session's durable workspace as the workflow holds it: the turn log (checkpoints and
 * snapshot references, see checkpoints.ts), the snapshot activity after turns that could change
 * files, the `rewind` update and the `checkpoint` and `diff` queries.
 *
 * A rewind is requested by the update and carried out by the driver between turns (rewind.ts):
 * the handler stops what is in flight, as an interrupt does, and waits for the outcome. Its
 * validator rejects what can be known without files (an unknown turn, a rewind in progress); the
 * check for changes made beside the session needs the files, so it runs as an activity first.
 */
import { ApplicationFailure, CancellationScope, condition, patched, workflowInfo } from '@temporalio/workflow';
import type { DiffRange, DiffRequest, ForkPoint, RewindResult } from '../../shared/contract';
import { ErrorType } from '../../shared/errors';
import { checkMessageInput, REWIND_UPDATE } from '../../shared/message-inputs';
import type { FileChange, SnapshotRecord, TakenSnapshot } from '../../shared/workspace';
import {
  checkWorkspace,
  diffSnapshots,
  materializeSnapshot,
  snapshotWorkspace,
  WORKSPACE_OPTIONS,
} from '../activity-options';
import {
  checkpointAt,
  checkpointStored,
  checkRewind,
  diffRange,
  EMPTY_TURN_LOG,
  forkPoint,
  latestSnapshot,
  type NormalizedRewind,
  recordCheckpoint,
  recordSnapshot,
  rewoundFileStates,
  snapshotAt,
  turnEndFor,
  type TurnLog,
} from '../core/checkpoints';
import { failureMessage } from '../core/failures';
import { READ_STATE_PATCH, SESSION_START_PATCH } from '../core/features';
import type { LoopState } from '../core/loop-state';

/** What the workspace needs of its session. */
export interface WorkspaceHost {
  readonly state: LoopState;
  readonly interactive: boolean;
  finished(): boolean;
  /** A tool batch or hook is running: the working tree may be changing under a check. */
  toolsRunning(): boolean;
  /** Stops the model call or tool batch in flight, and any that starts before the rewind is done. */
  stopForRewind(): void;
  /** Runs a workspace activity on the session's host (and wherever the session goes if that host is lost). */
  onHost<T>(run: (where: { taskQueue?: string }) => Promise<T>): Promise<T>;
  /** A transcript note that a snapshot could not be taken. */
  snapshotFailed(turn: number, error: string): void;
}

/** What a run hands to the next when it continues as new. */
export interface CarriedWorkspace {
  turnLog?: TurnLog;
  /** The run the files were last snapshotted or put back under (reset.ts). */
  workspaceRun?: string;
}

type RewindOutcome = { ok: RewindResult } | { error: string; type: string; outsideChanges?: FileChange[] };

export class SessionWorkspace {
  log: TurnLog = EMPTY_TURN_LOG;
  /** The run the latest snapshot or put-back recorded it ran under: another, in a run made by a reset, means the files are not this run's (reset.ts). */
  lastRun: string | undefined;
  /** The run this one continued from, as the carried state names it (set by that run as it continued). */
  carriedRun: string | undefined;
  /** A reset run's put-back in flight: every workspace step waits for the same one. */
  puttingBack: Promise<void> | undefined;
  private pending: { request: NormalizedRewind; ticket: number } | null = null;
  private tickets = 0;
  private readonly outcomes = new Map<number, RewindOutcome>();

  constructor(
    /** Off for sessions recorded before durable workspaces (replay). */
    readonly enabled: boolean,
    private readonly host: WorkspaceHost,
  ) {}

  /** The `checkpoint` query: the fork point of `turn` (an error answers the caller; the workflow goes on untouched). */
  checkpointAt(turn: number): ForkPoint {
    const point = forkPoint(this.log, turn, this.host.state.model);
    const turns = this.log.checkpoints.map((entry) => entry.turn).join(', ') || 'none';
    if (!point) throw new Error(`turn ${turn} has no checkpoint with a snapshot (turns: ${turns})`);
    return point;
  }

  /** The `diff` query: what changed between two turns (default: start to now). */
  diff(range: DiffRequest): DiffRange {
    return diffRange(this.log, range);
  }

  restore(carried: CarriedWorkspace): void {
    if (carried.turnLog) this.log = carried.turnLog;
    if (typeof carried.workspaceRun === 'string') this.lastRun = this.carriedRun = carried.workspaceRun;
  }

  carry(): CarriedWorkspace {
    // At the boundary the files are this run's: the next run tells a reset from its continuation by it.
    return this.enabled ? { turnLog: this.log, workspaceRun: workflowInfo().runId } : {};
  }

  /** The end of the current turn: a point a rewind or a fork can go back to. */
  checkpoint(endsWithUser: boolean): void {
    if (this.enabled) this.log = recordCheckpoint(this.log, this.host.state, endsWithUser);
  }

  /** For the next activity that stores the conversation: how many pending messages close the last turn. */
  turnEnd(state: LoopState): { turnEnd?: number } {
    const turnEnd = this.enabled ? turnEndFor(this.log, state) : undefined;
    return turnEnd === undefined ? {} : { turnEnd };
  }

  /** That activity stored them: the checkpoint now holds a reference instead of the messages. */
  recordCheckpointRef(checkpointRef: string | undefined): void {
    this.log = checkpointStored(this.log, checkpointRef);
  }

  /** The snapshot the current turn started from. */
  get latestRef(): string | undefined {
    return latestSnapshot(this.log)?.ref;
  }

  get latestSnapshot(): SnapshotRecord | undefined {
    return latestSnapshot(this.log);
  }

  /**
   * Snapshots the working tree after turn `turn` (or at the session's start), before the loop goes
   * on: a rewind or a crash-exact retry must find it. A cancellation of the workflow does not stop
   * it half-way. A snapshot that fails leaves a gap (the next one covers its changes), not a failed session.
   * `startKey`: the session's start snapshot, kept under that key (a reset to the first task gets it back).
   */
  async snapshot(turn: number, startKey?: string): Promise<SnapshotRecord | undefined> {
    if (!this.enabled) return undefined;
    const previousRef = this.latestRef;
    try {
      const taken = await CancellationScope.nonCancellable(() =>
        this.host.onHost((where) =>
          snapshotWorkspace.executeWithOptions(
            { ...WORKSPACE_OPTIONS, ...where, summary: turn === 0 ? 'snapshot (start)' : `turn ${turn} · snapshot` },
            [
              {
                workdir: this.host.state.workdir,
                ...(previousRef ? { previousRef } : {}),
                ...(startKey ? { startKey } : {}),
              },
            ],
          ),
        ),
      );
      if (taken.runId) this.lastRun = taken.runId;
      const record = { turn, ref: taken.ref, filesChanged: taken.filesChanged };
      this.log = recordSnapshot(this.log, record);
      return record;
    } catch (error) {
      this.host.snapshotFailed(turn, failureMessage(error));
      return undefined;
    }
  }

  /** Writes a snapshot's files into the (empty) workdir of a fork; resumable after a crash. */
  async materialize(workdir: string, ref: string, where: { taskQueue?: string }): Promise<string | undefined> {
    try {
      return (
        await materializeSnapshot.executeWithOptions({ ...WORKSPACE_OPTIONS, ...where, summary: 'fork · files' }, [
          { workdir, ref },
        ])
      ).host;
    } catch (error) {
      throw ApplicationFailure.nonRetryable(
        `The fork's files could not be written into ${workdir}: ${failureMessage(error)}`,
        ErrorType.InvalidWorkdir,
      );
    }
  }

  /** A snapshot a call or the hooks took of the workspace as they left it. */
  recordSnapshot(turn: number, taken: TakenSnapshot): void {
    if (this.enabled) this.log = recordSnapshot(this.log, { turn, ...taken });
  }

  /**
   * The two snapshots the session's changes lie between: the one it started from and its last.
   * The result's `filesChanged` compares them, and a `repo` session's commit is made from them,
   * so the two always agree.
   */
  changeRange(): { fromRef: string; toRef: string } | undefined {
    const first = this.log.snapshots[0];
    const last = latestSnapshot(this.log);
    if (!this.enabled || !first || !last) return undefined;
    const start = this.log.start;
    // Only where a rewind replaced the first snapshot, and only for sessions ending since this shipped.
    const fromRef = start !== undefined && start !== first.ref && patched(SESSION_START_PATCH) ? start : first.ref;
    return { fromRef, toRef: last.ref };
  }

  /** The session's changes, first snapshot to last, and its last snapshot, for its result. */
  async filesChanged(): Promise<{ filesChanged?: Awaited<ReturnType<typeof diffSnapshots>>; snapshotRef?: string }> {
    const range = this.changeRange();
    if (!range) return {};
    if (range.fromRef === range.toRef) return { filesChanged: [], snapshotRef: range.toRef };
    const filesChanged = await diffSnapshots.executeWithOptions({ ...WORKSPACE_OPTIONS, summary: 'files changed' }, [
      range,
    ]);
    return { filesChanged, snapshotRef: range.toRef };
  }

  get rewindPending(): boolean {
    return this.pending !== null;
  }

  takeRewind(): { request: NormalizedRewind; ticket: number } | null {
    const taken = this.pending;
    this.pending = null;
    return taken;
  }

  /** The session ends with a rewind still waiting: its update fails, saying so. */
  abandonRewind(message: string): void {
    const taken = this.takeRewind();
    if (taken) this.settle(taken.ticket, { error: message, type: ErrorType.RewindFailed });
  }

  settle(ticket: number, outcome: RewindOutcome): void {
    this.outcomes.set(ticket, outcome);
  }

  checkpointOf(turn: number) {
    return checkpointAt(this.log, turn);
  }

  snapshotOf(turn: number) {
    return snapshotAt(this.log, turn);
  }

  /** The file states a rewind to `turn` goes on with; undefined in sessions rewound before they came back (replay). */
  readStateOf(turn: number): Record<string, string> | undefined {
    return patched(READ_STATE_PATCH) ? rewoundFileStates(this.log, turn, this.host.state.workdir) : undefined;
  }

  /** The `rewind` update's validator: refuses before the update enters history. */
  validateRewind(...args: unknown[]): void {
    const check = checkRewind(this.log, checkMessageInput(REWIND_UPDATE, args), {
      currentTurn: this.host.state.turnCount,
      interactive: this.host.interactive,
      finished: this.host.finished(),
      rewinding: this.pending !== null,
    });
    if (!check.ok) throw new Error(check.message);
  }

  /** The `rewind` update: asks for a rewind between turns and returns once it was carried out. */
  async rewind(raw: Parameters<typeof checkRewind>[1]): Promise<RewindResult> {
    const { request } = checkRewind(this.log, raw, {
      currentTurn: Infinity,
      interactive: true,
      finished: false,
      rewinding: false,
    }) as { request: NormalizedRewind };
    // Between turns no tool changes files: changes found now were made beside the session, and a
    // refusal leaves the session undisturbed. (While tools run, the driver checks once they stopped.)
    const expectedRef = this.latestRef;
    const targetRef = snapshotAt(this.log, request.turn)?.ref;
    if (request.files && !request.force && !this.host.toolsRunning() && expectedRef && targetRef) {
      const outside = await this.host.onHost((where) =>
        checkWorkspace.executeWithOptions(
          { ...WORKSPACE_OPTIONS, ...where, summary: `rewind to turn ${request.turn} · check` },
          [{ workdir: this.host.state.workdir, targetRef, expectedRef, force: false }],
        ),
      );
      if (outside.length > 0) throw refusal(outside);
    }
    const ticket = ++this.tickets;
    this.pending = { request, ticket };
    this.host.stopForRewind();
    await condition(() => this.outcomes.has(ticket));
    const outcome = this.outcomes.get(ticket)!;
    this.outcomes.delete(ticket);
    if ('ok' in outcome) return outcome.ok;
    throw outcome.outsideChanges
      ? refusal(outcome.outsideChanges)
      : ApplicationFailure.nonRetryable(outcome.error, outcome.type);
  }
}

/** The update's failure when files changed beside the session: the paths in the message and the details. */
export function refusal(outside: FileChange[]): ApplicationFailure {
  const listed = outside.slice(0, 50).map((change) => `${change.change} ${change.path}`);
  const more = outside.length > listed.length ? ` and ${outside.length - listed.length} more` : '';
  return ApplicationFailure.create({
    message: `Rewind refused: files changed beside the session since its last snapshot (${listed.join(', ')}${more}). Nothing was changed; rewind with force to overwrite them.`,
    type: ErrorType.RewindRefused,
    nonRetryable: true,
    details: [outside],
  });
}
