/**
 * What people see of a running session: the `state` and `transcript` queries, the workflow's
 * current details (Markdown in the Temporal UI), and the typed search attributes AgentTurn,
 * AgentStatus and AgentLastTransition (`temporal workflow list --query "AgentStatus='waiting_approval'"`).
 *
 * The publisher is its only link to Temporal (its queries are registered by the driver): the rest is plain state.
 */
import { WORKTREES_SHOWN, type WorktreeChildView } from '../../shared/worktrees';
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type {
  AgentState,
  AgentStatus,
  ContextEdit,
  PendingApproval,
  PendingQuestion,
  RateLimitView,
  TerminalReason,
  ToolCallView,
  TranscriptEntry,
  TranscriptPage,
  TranscriptRequest,
  Transition,
} from '../../shared/contract';
import type { PrepareSessionOutput } from '../../shared/activity-io';
import type { SnapshotRecord } from '../../shared/workspace';
import { ZERO_USAGE } from '../../shared/conversation';
import { USER_MESSAGE_SHOWN_CHARS } from '../../shared/limits';
import { mcpSessionNote } from '../../shared/mcp';
import type { Todo } from '../../shared/todos';
import { AGENT_COST_USD, AGENT_LAST_TRANSITION, AGENT_STATUS, AGENT_TURN } from '../../shared/search-attributes';
import type { BackgroundTaskView } from '../../shared/background';
import { estimateTokens, type LoopState } from '../core/loop-state';
import type { PermissionMode } from '../../shared/permission-modes';
import { currentDetails } from './current-details';

/** What the view shows of the people steering the session (Steering has it all). */
export interface People {
  pendingApprovals: readonly PendingApproval[];
  queued: readonly string[];
  pendingQuestions?: readonly PendingQuestion[];
  permissionMode?: PermissionMode;
}

/** The values of the three search attributes. */
/** A transcript entry without its turn, which the session fills in. */
export type Entry = TranscriptEntry extends infer E ? (E extends TranscriptEntry ? Omit<E, 'turn'> : never) : never;

export interface SearchAttributeValues {
  turn: number;
  status: AgentStatus;
  transition: string;
  /** What the session spent so far (USD), once a call had a price: sent with the others, never alone. */
  costUsd?: number;
}

/** Where the view goes: the Temporal UI's current details and the search attributes. */
export interface ViewPublisher {
  details(markdown: string): void;
  searchAttributes(values: SearchAttributeValues): void;
}

const TEMPORAL: ViewPublisher = {
  details: (markdown) => setCurrentDetails(markdown),
  searchAttributes: ({ turn, status, transition, costUsd }) =>
    upsertSearchAttributes([
      { key: AGENT_TURN, value: turn },
      { key: AGENT_STATUS, value: status },
      { key: AGENT_LAST_TRANSITION, value: transition },
      // Issue 26: only once known, so sessions recorded before upsert what they did.
      ...(costUsd !== undefined ? [{ key: AGENT_COST_USD, value: costUsd }] : []),
    ]),
};

/** What a run hands to the next when it continues as new. */
export interface CarriedView {
  transcriptBase: number;
  transitions: Transition[];
  contextEdits: ContextEdit[];
  runs: number;
  /** The task list (runs recorded before TodoWrite carry none). */
  todos?: Todo[];
}

export class SessionView {
  readonly transcript: TranscriptEntry[] = [];
  /** Transcript entries of earlier runs of this session (continue-as-new): indexes go on from here. */
  private transcriptBase = 0;
  /** Earlier runs of this session. */
  private runs = 0;
  private readonly state: AgentState;
  private published = { turn: -1, status: '', transition: '' };

  constructor(
    model: string,
    private readonly people: People,
    /** Off for sessions recorded before search attributes were upserted (replay). */
    private readonly searchAttributes: boolean,
    private readonly publisher: ViewPublisher = TEMPORAL,
  ) {
    this.state = {
      turn: 0,
      model,
      status: 'running_model',
      lastTransition: null,
      transitions: [],
      contextEdits: [],
      estimatedContextTokens: 0,
      usage: ZERO_USAGE,
      currentToolCalls: [],
      pendingApprovals: [],
      queuedMessages: 0,
      lastToolSummary: null,
      reason: null,
      sandbox: null,
      workdir: null,
      host: null,
      snapshots: [],
      todos: [],
    };
  }

  snapshot(): AgentState {
    return {
      ...this.state,
      pendingApprovals: [...this.people.pendingApprovals],
      ...(this.people.pendingQuestions ? { pendingQuestions: [...this.people.pendingQuestions] } : {}),
      ...(this.people.permissionMode ? { permissionMode: this.people.permissionMode } : {}),
      queuedMessages: this.people.queued.length,
    };
  }

  /** Indexes run across the whole session; entries of earlier runs are no longer held. */
  page(request: TranscriptRequest): TranscriptPage {
    const fromIndex = Math.max(this.transcriptBase, request.fromIndex ?? 0);
    const local = fromIndex - this.transcriptBase;
    const entries = this.transcript.slice(local, local + Math.max(1, request.limit ?? 200));
    return { entries, nextIndex: fromIndex + entries.length, total: this.transcriptBase + this.transcript.length };
  }

  /** The worker prepared the session: where its commands run, and (new sessions) what the transcript should say of it. */
  showPrepared(
    session: PrepareSessionOutput,
    { note, forkedFrom }: { note: boolean; forkedFrom?: { workflowId: string; turn: number } },
  ): void {
    this.state.sandbox = session.sandbox ?? null;
    this.state.workdir = session.workdir;
    this.state.host = session.host ?? null;
    if (session.mcp) this.state.mcpServers = session.mcp.status;
    if (session.skippedSettings?.length) this.state.skippedSettings = session.skippedSettings;
    if (!note || session.sandbox === undefined) return;
    this.add({
      type: 'session',
      turn: forkedFrom?.turn ?? 0,
      workdir: session.workdir,
      sandbox: session.sandbox,
      ...(session.network ? { network: session.network } : {}),
      ...(session.skippedRepoHooks?.length ? { skippedRepoHooks: session.skippedRepoHooks } : {}),
      ...(session.skippedSettings?.length ? { skippedSettings: session.skippedSettings } : {}),
      ...(session.skippedRepoAgents?.length ? { skippedRepoAgents: session.skippedRepoAgents } : {}),
      ...(session.skills?.length ? { skills: session.skills } : {}),
      ...(session.skippedSkills?.length ? { skippedSkills: session.skippedSkills } : {}),
      ...mcpSessionNote(session),
      ...(session.instructionFiles?.length ? { instructionFiles: session.instructionFiles } : {}),
      ...(forkedFrom ? { forkedFrom } : {}),
    });
  }

  /**
   * The snapshots of the session's current line of turns (the `state` query), and the current
   * details again: the start snapshot may complete while the session already waits.
   */
  showSnapshots(snapshots: SnapshotRecord[]): void {
    const changed =
      this.state.snapshots.at(-1)?.ref !== snapshots.at(-1)?.ref || this.state.snapshots.length !== snapshots.length;
    this.state.snapshots = snapshots;
    if (changed) this.publisher.details(currentDetails(this.snapshot(), this.people.pendingApprovals));
  }

  sync(loop: LoopState): void {
    this.state.turn = loop.turnCount;
    this.state.model = loop.model;
    this.state.usage = loop.usage;
    this.state.lastTransition = loop.lastTransition;
    this.state.estimatedContextTokens = estimateTokens(loop);
    if (loop.learnedContextWindow !== undefined) this.state.learnedContextWindow = loop.learnedContextWindow;
    if (loop.mcp) this.state.mcpServers = loop.mcp.status;
  }

  add(entry: TranscriptEntry): void {
    this.transcript.push(entry);
  }

  /** Messages people sent, as the turn that takes them does (watch prints them, --json writes `user_message`). */
  recordMessages(turn: number, texts: string[]): string[] {
    const cut = (text: string) => `${text.slice(0, USER_MESSAGE_SHOWN_CHARS)}… (${text.length} chars)`;
    const shown = (text: string) => (text.length > USER_MESSAGE_SHOWN_CHARS ? cut(text) : text);
    for (const text of texts) this.add({ type: 'user_message', turn, text: shown(text) });
    return texts;
  }

  showTransition(loop: LoopState, next: Transition, detail?: string): void {
    this.state.transitions.push(next);
    this.add({ type: 'transition', turn: loop.turnCount, transition: next, ...(detail ? { detail } : {}) });
    this.sync(loop);
  }

  /**
   * The session's files moved to another host: shown as the last transition (state, current
   * details, `AgentLastTransition`) until the loop's next one, without changing the loop's own.
   */
  showMove(loop: LoopState, detail: string): void {
    this.showTransition(loop, 'workspace_moved', detail);
    this.state.lastTransition = 'workspace_moved';
    this.publish();
  }

  addEdits(loop: LoopState, edits: ContextEdit[], estimatedTokens: number): void {
    if (edits.length === 0) return;
    this.state.contextEdits.push(...edits);
    this.add({ type: 'context', turn: loop.turnCount, edits, estimatedTokens });
  }

  /** The tool calls running now (shown in the state query and the current details). */
  showToolCalls(calls: ToolCallView[]): void {
    this.state.currentToolCalls = calls;
  }

  showToolSummary(turn: number, text: string): void {
    this.state.lastToolSummary = text;
    this.add({ type: 'tool_summary', turn, text });
    this.publish();
  }

  /** Sets the status, refreshes the current details and (when changed) the search attributes. */
  setStatus(status: AgentStatus, loop?: LoopState): void {
    if (loop) this.sync(loop);
    this.state.status = status;
    this.publish();
  }

  /** The session waits for another's workdir lease (`detail` says whose), or (null) has it now. */
  showWorkdirWait(detail: string | null): void {
    if (detail) this.add({ type: 'workdir_lease', turn: this.state.turn, outcome: 'waiting', detail });
    this.setStatus(detail ? 'waiting_workdir' : 'running_model');
  }

  finish(loop: LoopState, reason: TerminalReason, error?: string): void {
    this.state.reason = reason;
    this.state.currentToolCalls = [];
    this.add({ type: 'end', turn: loop.turnCount, reason, ...(error ? { error } : {}) });
    this.setStatus('finished', loop);
  }

  publish(): void {
    this.publisher.details(currentDetails(this.snapshot(), this.people.pendingApprovals));
    if (!this.searchAttributes) return;
    const values = {
      turn: this.state.turn,
      status: this.state.status,
      transition: this.state.lastTransition ?? 'none',
    };
    // Upserts are commands in history: only changes are sent.
    if (
      this.published.turn === values.turn &&
      this.published.status === values.status &&
      this.published.transition === values.transition
    )
      return;
    this.published = values;
    const costUsd = this.state.usage.costUsd;
    this.publisher.searchAttributes(costUsd !== undefined ? { ...values, costUsd } : values);
  }

  /** Issue 26: the rate limit waited out now (`until` set), or the session's totals after it. */
  showRateLimit(rateLimit: RateLimitView | undefined): void {
    if (rateLimit) this.state.rateLimit = rateLimit;
  }

  /** The model wrote its task list (TodoWrite). */
  showTodos(todos: Todo[]): void {
    this.state.todos = todos;
    this.publish();
  }

  /** The session's background commands changed (started, ended, stopped). */
  showBackgroundTasks(tasks: BackgroundTaskView[]): void {
    if (tasks.length) this.state.backgroundTasks = tasks;
    else delete this.state.backgroundTasks;
    this.publish();
  }

  /** A writing sub-agent started or was merged (issue 27): its line in `state.worktrees`, the last ones kept. */
  showWorktree(child: WorktreeChildView): void {
    const others = (this.state.worktrees ?? []).filter((shown) => shown.toolUseId !== child.toolUseId);
    this.state.worktrees = [...others, child].slice(-WORKTREES_SHOWN);
    this.publish();
  }

  /** Bounded: the last transitions and edits are enough to see the path taken. */
  carry(): CarriedView {
    return {
      ...(this.state.todos?.length ? { todos: this.state.todos } : {}),
      transcriptBase: this.transcriptBase + this.transcript.length,
      transitions: this.state.transitions.slice(-200),
      contextEdits: this.state.contextEdits.slice(-200),
      runs: this.runs + 1,
    };
  }

  restore(carried: CarriedView, turn: number): void {
    this.transcriptBase = carried.transcriptBase;
    this.runs = carried.runs;
    this.state.transitions.push(...carried.transitions);
    this.state.contextEdits.push(...carried.contextEdits);
    if (carried.todos) this.state.todos = carried.todos;
    this.add({ type: 'transition', turn, transition: 'continued_as_new', detail: `run ${carried.runs + 1}` });
  }
}
