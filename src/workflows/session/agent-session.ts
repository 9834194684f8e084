/**
 * One session as the driver sees it: the loop state, what people see of it (the view) and what
 * people ask of it (steering), kept in step. The driver and its phases change the session only
 * through these methods, so every change reaches the `state` query, the transcript and the UI.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  patched,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { CallModelOutcome, PlannedToolUse, PrepareSessionOutput } from '../../shared/activity-io';
import type {
  AgentResult,
  AgentStatus,
  ContextEdit,
  RewindRequest,
  TerminalReason,
  TranscriptEntry,
} from '../../shared/contract';
import { contentPreview, type ToolResult } from '../../shared/conversation';
import { writtenTodos } from '../../shared/todos';
import type { ResolvedAgentInput } from '../../shared/input';
import { agentTypeOf, mergeToolHooks, type StopHook, subagentStopHooks } from '../../shared/hooks';
import { AGENT_HOST } from '../../shared/search-attributes';
import type { TakenSnapshot } from '../../shared/workspace';
import type { BranchResult } from '../../shared/repository';
import { CLOSE_SESSION_OPTIONS, closeSession } from '../activity-options';
import { type Checkpoint, forkedState, rewoundLog, rewoundState, startSnapshot } from '../core/checkpoints';
import { movedState } from '../core/host-loss';
import { prepareNewSession } from './prepare';
import { putBackAfterReset } from './reset';
import { reportRunEnded } from './run-trace';
import { afterModel, beginTurn, type Finish, type Step, withoutRecovery } from '../core/loop';
import { injectMessages, initialLoopState, type LoopState, NEW_TURN, toResult } from '../core/loop-state';
import { summaryOf } from '../core/call-summary';
import { COMPACTION_FITS_PATCH, type Features, MAX_BUDGET_PATCH } from '../core/features';
import { budgetExhausted } from '../core/budget';
import { SessionHost } from './session-host';
import { type CarriedView, type Entry, type People, SessionView } from './session-view';
import { type CarriedSteering, Steering } from './steering';
import { type CarriedWorkspace, SessionWorkspace } from '../workspace/workspace';
import { type CarriedTranscriptChain, TranscriptChain } from './transcript-chain';
import { BackgroundCommands, type CarriedBackground } from './background-commands';
import { HeldLease } from '../workspace/workdir-lease';
import type { PermissionMode } from '../../shared/permission-modes';
import { startingPermissionMode } from '../core/approval-rules';

/** What one run hands to the next when it continues as new (the `resume` input field). Plain JSON. */
export interface CarriedState
  extends CarriedSteering, CarriedView, CarriedWorkspace, CarriedTranscriptChain, CarriedBackground {
  [key: string]: unknown;
  session: PrepareSessionOutput;
  loop: LoopState;
}

export class AgentSession {
  readonly id = workflowInfo().workflowId;
  readonly steering: Steering;
  readonly workspace: SessionWorkspace;
  /** Where the workspace lives; every workspace activity goes through `host.call`. */
  readonly host: SessionHost;
  /** What people see: the `state` and `transcript` queries, current details, search attributes. */
  readonly view: SessionView;
  /** The transcript as stored so far (a chain of nodes), for clients with no worker to ask. */
  readonly transcriptChain: TranscriptChain;
  /** Bash commands run in the background (issue 26): tracked across turns, listed in `state`. */
  readonly background: BackgroundCommands;
  private closed = false;
  /** The start snapshot, taken while the first model call runs. */
  private baseline: Promise<void> = Promise.resolve();
  /** False while the start snapshot is taken: its end checks for a reset itself. */
  private baselineTaken = true;
  private loop!: LoopState;
  /** What `prepareSession` found (read only: a move replaces it). */
  prepared!: PrepareSessionOutput;
  /** The workdir's lease (workdir-lease.ts): renewed while the run lasts, released when the session ends. */
  lease!: HeldLease;
  private turnsAtRunStart = 0;
  /** What a cancellation of the workflow would stop now (follows the status). */
  private running: 'model' | 'tools' = 'model';
  private currentStatus: AgentStatus = 'running_model';
  /** The text of the model's last reply: an ExitPlanMode call without `plan` presents it as the plan. */
  private replyText = '';

  /** The session's parts, with no handler yet: the driver registers them all in one block (agent-workflow.ts). */
  constructor(
    readonly input: ResolvedAgentInput,
    readonly features: Features,
  ) {
    this.steering = new Steering();
    this.view = new SessionView(input.model ?? '', this.peopleView(), features.steering);
    this.background = new BackgroundCommands(
      (tasks) => this.view.showBackgroundTasks(tasks),
      ({ id, status, description }) => this.note({ type: 'background', taskId: id, status, description }),
    );
    const loop = () => this.loop;
    this.workspace = new SessionWorkspace(features.durableWorkspace, {
      get state() {
        return loop();
      },
      interactive: input.interactive,
      finished: () => this.closed,
      toolsRunning: () => this.currentStatus === 'running_tools',
      onHost: (run) => this.host.call(run),
      stopForRewind: () => this.steering.stopInFlight(() => this.workspace.rewindPending),
      snapshotFailed: (turn, error) => this.view.add({ type: 'snapshot', turn, error }),
    });
    this.transcriptChain = new TranscriptChain(this.view.transcript, () => this.workspace.log.snapshots);
    this.host = new SessionHost({
      input,
      prepared: () => this.prepared,
      snapshots: () => ({ first: startSnapshot(this.workspace.log), last: this.workspace.log.snapshots.at(-1) }),
      moved: (next, detail) => {
        this.prepared = next;
        this.loop = movedState(this.loop, next.workdir, next.systemRef);
        this.view.showPrepared(next, { note: false });
        this.view.showMove(this.loop, detail);
      },
      leftWorkdir: () => this.lease.releaseForMove(),
      showWaiting: (lost) => this.view.setStatus(lost ? 'waiting_host' : this.currentStatus, this.loop),
    });
  }

  /** Takes over what an earlier run carried, or records the task and prepares the session on the worker. */
  async open(): Promise<void> {
    const { input, features } = this;
    const resumed = input.resume as CarriedState | undefined;
    const fork = features.durableWorkspace ? input.fork : undefined;
    if (resumed) {
      this.steering.restore(resumed);
      this.view.restore(resumed, resumed.loop.turnCount);
      this.workspace.restore(resumed);
      this.transcriptChain.restore(resumed);
      this.background.restore(resumed);
    } else if (input.prompt !== undefined) {
      this.view.add({ type: 'user', turn: fork?.turn ?? 0, text: input.prompt });
    }
    this.prepared =
      resumed?.session ??
      (await prepareNewSession(input, fork, this.workspace, (detail) => this.view.showWorkdirWait(detail)));
    this.lease = HeldLease.kept(this.prepared, (detail) =>
      this.note({ type: 'workdir_lease', outcome: 'lost', detail }),
    );
    if (!resumed && input.prompt === undefined)
      this.view.add({
        type: 'user',
        turn: fork?.turn ?? 0,
        text: contentPreview(this.prepared.prompt, Infinity),
      });
    if (this.prepared.host) upsertSearchAttributes([{ key: AGENT_HOST, value: this.prepared.host }]);
    // Events of input `hooks` that are not run are listed with the settings entries that are not.
    const skippedSettings = [...(input.skippedHooks ?? []), ...(this.prepared.skippedSettings ?? [])];
    this.view.showPrepared(skippedSettings.length ? { ...this.prepared, skippedSettings } : this.prepared, {
      note: !resumed,
      ...(fork ? { forkedFrom: { workflowId: fork.workflowId, turn: fork.turn } } : {}),
    });
    const initial = initialLoopState(input, this.prepared, { autocompactFloor: features.learnsContextWindow });
    this.loop = resumed?.loop ?? (fork ? forkedState(initial, fork) : initial);
    this.turnsAtRunStart = this.loop.turnCount;
    // Signals dropped so far (some before this run: its handlers got them first) are noted now, at its turn.
    this.steering.droppedSignals.deliverTo((dropped) => this.note({ type: 'dropped_signal', ...dropped }));
    if (!resumed && features.durableWorkspace) {
      // The baseline every later snapshot, diff and rewind compares with. The first model call
      // does not need it, so it is taken meanwhile (a first snapshot of a big repository takes
      // seconds); whatever could change files waits for it (`workspaceReady`).
      const turn = this.loop.turnCount;
      const { workflowId, firstExecutionRunId } = workflowInfo();
      this.baselineTaken = false;
      this.baseline = this.snapshotAfter(turn, `${workflowId}/${firstExecutionRunId}`).then(() => {
        this.noteSnapshot(turn);
        this.baselineTaken = true;
        // A run reset to its first task: the files go back to the start (reset.ts).
        return putBackAfterReset(this);
      });
      this.workspace.checkpoint(true);
    }
    this.view.showSnapshots(this.workspace.log.snapshots);
  }

  /**
   * Resolves once the start snapshot is taken (and, in a run made by a reset, the files are put
   * back: reset.ts): tools, hooks and rewinds wait for it.
   */
  workspaceReady(): Promise<void> {
    return (this.baselineTaken && putBackAfterReset(this)) || this.baseline;
  }

  /**
   * A snapshot by an activity of its own, before the loop goes on: at the start, and after a turn
   * whose calls or hooks could not take theirs (cancelled, failed).
   */
  async snapshotAfter(turn: number, startKey?: string): Promise<void> {
    await this.workspace.snapshot(turn, startKey);
    this.view.showSnapshots(this.workspace.log.snapshots);
  }

  /** A call or the hooks snapshotted the workspace as they left it. */
  recordSnapshot(turn: number, taken: TakenSnapshot): void {
    this.workspace.recordSnapshot(turn, taken);
    this.view.showSnapshots(this.workspace.log.snapshots);
  }

  /** The transcript's line for the turn's snapshot, once the turn's calls or hooks are done. */
  noteSnapshot(turn: number): void {
    const record = this.workspace.log.snapshots.find((snapshot) => snapshot.turn === turn);
    if (record) this.view.add({ type: 'snapshot', turn, ref: record.ref, filesChanged: record.filesChanged });
  }

  /** The rewind went through: the conversation (and the files, already put back) are those of the checkpoint's turn. */
  rewindTo(checkpoint: Checkpoint, request: Required<RewindRequest>, previousSnapshot: string | undefined): void {
    const latest = this.workspace.latestRef;
    const fileStates = this.workspace.readStateOf(checkpoint.turn); // before the log loses later turns
    this.workspace.log = rewoundLog(
      this.workspace.log,
      checkpoint.turn,
      request.files ? {} : latest ? { currentRef: latest } : {},
    );
    this.view.showSnapshots(this.workspace.log.snapshots);
    const detail = request.files
      ? `to turn ${checkpoint.turn}, files restored${previousSnapshot ? ` (the files before it: ${previousSnapshot})` : ''}`
      : `to turn ${checkpoint.turn}, conversation only`;
    const restored = { filesRestored: request.files, ...(fileStates ? { fileStates } : {}) };
    this.update(rewoundState(this.loop, checkpoint, restored), { transition: true, detail });
  }

  get state(): LoopState {
    return this.loop;
  }

  /** Stop hooks of the input, then those of the workdir's settings (read when the session started; not a sub-agent's). */
  get stopHooks(): StopHook[] {
    const parent = this.input.parentSession;
    // A sub-agent's stop hooks are the SubagentStop hooks (its parent's, its settings') of its type.
    if (parent) {
      const hooks = mergeToolHooks(this.input.toolHooks, this.prepared.settingsToolHooks);
      return [...this.input.stopHooks, ...subagentStopHooks(hooks, agentTypeOf(parent))];
    }
    return [...this.input.stopHooks, ...(this.prepared.settingsStopHooks ?? [])];
  }

  /** Estimated tokens of the system prompt and tool definitions. */
  get overheadTokens(): number {
    return this.prepared.overheadTokens;
  }

  get turnsThisRun(): number {
    return this.loop.turnCount - this.turnsAtRunStart;
  }

  /** A new turn takes the messages people queued; a retry of the current turn does not. */
  beginTurn(): { kind: 'call_model'; newTurn: boolean } | { kind: 'finish'; reason: TerminalReason; error?: string } {
    const newTurn = NEW_TURN.includes(this.loop.lastTransition);
    // Issue 26: a session whose spend reached input `maxBudgetUsd` stops here, every tool_use answered.
    const spent = newTurn ? budgetExhausted(this.loop.usage, this.input.maxBudgetUsd) : undefined;
    if (spent && patched(MAX_BUDGET_PATCH)) return { kind: 'finish', reason: 'max_budget', error: spent };
    if (newTurn) this.loop = injectMessages(this.loop, this.takeMessages());
    // Background commands that ended since the last request: their notifications go with this one.
    if (newTurn) this.loop = injectMessages(this.loop, this.background.takeNotifications());
    const turn = beginTurn(this.loop);
    if (turn.kind === 'finish') return turn;
    this.loop = turn.state;
    return { kind: 'call_model', newTurn };
  }

  /** Takes in the model's outcome and says what follows (the old behaviour where a feature is off). */
  afterModel(outcome: CallModelOutcome): Step {
    const learnWindow = this.features.learnsContextWindow;
    const decision = afterModel(this.loop, outcome, {
      learnWindow,
      // Asked only when a call was refused as too long (no marker in sessions that never are).
      keepLearnedWindow: learnWindow && outcome.kind === 'prompt_too_long' && patched(COMPACTION_FITS_PATCH),
    });
    this.loop = decision.state;
    if (outcome.kind === 'response') {
      this.replyText = outcome.text;
      this.note({ type: 'assistant', text: outcome.text, stopReason: outcome.stopReason, usage: outcome.usage });
    }
    return this.features.recoveryLayers ? decision.step : withoutRecovery(decision.step, outcome);
  }

  /** The messages people queued, for the next turn: the transcript shows them in it. */
  takeMessages = (): string[] => this.view.recordMessages(this.loop.turnCount + 1, this.steering.takeQueued());
  /**
   * The one way the loop state changes. `shown`: the loop goes on for the reason in
   * `next.lastTransition`, which people see (with `detail`); without it, nothing is shown
   * (context, usage, files read).
   */
  update(next: LoopState, shown?: { transition: true; detail?: string }): void {
    this.loop = next;
    if (shown) this.view.showTransition(next, next.lastTransition!, shown.detail);
  }

  /**
   * The session's permission mode now (Claude Code's names: `auto` and `ask` in the input are
   * `bypassPermissions` and `default`). The one accessor the approval gate reads.
   */
  permissionMode(): PermissionMode {
    // `prepared` is unset until the session is prepared: the input's mode until then.
    const settings = (this.prepared as PrepareSessionOutput | undefined)?.settingsPermissions;
    return this.steering.permissionMode ?? startingPermissionMode(this.input, settings);
  }

  /** What people see of the steering, with the mode the session is in now (changed or as it started). */
  private peopleView(): People {
    const steering = this.steering;
    const mode = () => this.permissionMode();
    return {
      get pendingApprovals() {
        return steering.pendingApprovals;
      },
      get queued() {
        return steering.queued;
      },
      get pendingQuestions() {
        return steering.pendingQuestions;
      },
      get permissionMode() {
        return mode();
      },
    };
  }

  /** EnterPlanMode or an approved plan changed the mode: the transcript says so, people see it. */
  setPermissionMode(mode: PermissionMode, detail: string): void {
    this.steering.permissionMode = mode;
    this.note({ type: 'permission_mode', mode, detail });
    this.view.publish();
  }

  /** The text of the model's last reply. */
  get lastReplyText(): string {
    return this.replyText;
  }

  setStatus(status: AgentStatus): void {
    this.currentStatus = status;
    if (status === 'running_tools' || status === 'waiting_approval' || status === 'waiting_answer')
      this.running = 'tools';
    if (status === 'running_model' || status === 'compacting') this.running = 'model';
    this.view.setStatus(status, this.loop);
  }

  /** The workflow was cancelled: the session ends like an interrupted one, with a result. */
  cancellationOutcome(): Finish {
    return this.running === 'model'
      ? { kind: 'finish', reason: 'aborted_streaming', error: 'Cancelled while the model was responding' }
      : { kind: 'finish', reason: 'aborted_tools', error: 'Cancelled while tools were running' };
  }

  /** A transcript entry of the current turn. */
  note(entry: Entry): void {
    this.view.add({ ...entry, turn: this.loop.turnCount } as TranscriptEntry);
  }

  showContextEdits(edits: ContextEdit[], estimatedTokens: number): void {
    this.view.addEdits(this.loop, edits, estimatedTokens);
  }

  showToolCalls(calls: PlannedToolUse[]): void {
    this.view.showToolCalls(calls.map((call) => ({ toolUseId: call.id, name: call.name, summary: summaryOf(call) })));
  }

  recordToolResults(toolUses: PlannedToolUse[], results: ToolResult[]): void {
    results.forEach((result, index) =>
      this.note({
        type: 'tool_result',
        toolUseId: result.toolUseId,
        name: toolUses[index]?.name ?? '',
        isError: result.isError,
        preview: contentPreview(result.content),
      }),
    );
    const todos = writtenTodos(toolUses, results);
    if (todos) this.view.showTodos(todos);
  }

  showToolSummary(turn: number, text: string): void {
    this.view.showToolSummary(turn, text);
  }

  /** Ends the run with its result, once update handlers (an interrupt waiting for its effect) have returned. */
  async finish(reason: TerminalReason, error?: string): Promise<AgentResult> {
    // Background commands end with the session (Claude Code stops them at its final response).
    if (this.background.running()) await CancellationScope.nonCancellable(() => this.background.stopAll());
    this.closed = true;
    this.steering.close();
    // A rewind asked for just as the session ended has nothing left to rewind.
    this.workspace.abandonRewind(`the session ended (${reason}) before the rewind could be carried out`);
    this.view.finish(this.loop, reason, error);
    let changes: Awaited<ReturnType<SessionWorkspace['filesChanged']>> & {
      branch?: BranchResult;
      transcriptRef?: string;
    } = {};
    if (this.features.cancellationEndsWithResult) {
      // Even in a cancelled workflow (else the run would end CANCELED instead of with its result).
      await CancellationScope.nonCancellable(async () => {
        if (this.features.durableWorkspace) {
          await this.baseline;
          changes = await this.workspace.filesChanged().catch(() => ({}));
        }
        if (this.prepared?.repo) {
          const message = `durable-agent session ${this.id} (${reason}, ${this.loop.turnCount} turns)\n\n${this.input.prompt?.slice(0, 2_000) ?? contentPreview(this.prepared.prompt, 2_000)}`;
          changes.branch = await this.host.commitBranch(() => this.loop.workdir, message, this.workspace.changeRange());
        }
        // No call of this session can be retried any more: its edit journal goes. Best effort.
        const closed = await closeSession
          .executeWithOptions({ ...CLOSE_SESSION_OPTIONS, ...this.host.options(), summary: 'close session' }, [
            { sessionId: this.id, ...this.storedTranscript(), ...this.lease.forClose() },
          ])
          .catch(() => undefined);
        // Recorded sessions closed with no output: `closed` is then undefined or empty.
        if (closed?.transcriptRef) changes.transcriptRef = closed.transcriptRef;
        await this.lease.release();
        await condition(allHandlersFinished);
      });
    } else {
      await condition(allHandlersFinished);
    }
    reportRunEnded('completed', this.loop.turnCount, reason);
    return { ...toResult(this.loop, reason, error), ...changes };
  }

  /** What closeSession stores of the transcript: the last node of its chain, or (sessions recorded before it) the run's whole. */
  private storedTranscript() {
    if (this.transcriptChain.enabled()) return this.transcriptChain.mark({ always: true });
    return { transcript: this.view.transcript, snapshots: this.view.snapshot().snapshots };
  }

  /** Hands the session to a fresh run with the same workflow id (`rawInput`, plus what is carried). */
  async continueAsNew(rawInput: unknown): Promise<never> {
    await condition(allHandlersFinished);
    const { resume: _previous, ...fields } = rawInput as Record<string, unknown>;
    const carried: CarriedState = {
      session: this.prepared,
      loop: this.loop,
      ...this.steering.carry(),
      ...this.view.carry(),
      ...this.workspace.carry(),
      ...this.transcriptChain.carry(),
      ...this.background.carry(),
    };
    reportRunEnded('continued_as_new', this.loop.turnCount);
    return continueAsNew<(input: unknown) => Promise<AgentResult>>({ ...fields, resume: carried });
  }
}
