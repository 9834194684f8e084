/**
 * The public contract of `agentWorkflow`: its type and default task queue, its result, the
 * transitions and reasons people see, and the payloads of its signals, updates and queries
 * (their names are in src/workflows/definitions.ts; the input is in input.ts). People and tools
 * outside this repository use these names: change none of them.
 *
 * Plain JSON only: everything here is serialised into Temporal history.
 */
import type { WorktreeChildView } from './worktrees';
import type { BackgroundStatus, BackgroundTaskView } from './background';
import type { ConversationMessage, Usage } from './conversation';
import type { BranchResult } from './repository';
import type { FileChangeStat, SnapshotRecord } from './workspace';
import type { McpServerStatus, McpSessionNote } from './mcp';
import type { Todo } from './todos';
import type { PreparedNetwork } from './sandbox';
import type { SkippedSetting, ToolHookEvent } from './hooks';
import type { PermissionMode } from './permission-modes';
import type { ModeAfterPlan, PendingQuestion } from './plan-mode';

/** Update `answerQuestion`'s payload and receipt, and a question waiting in `state.pendingQuestions` (plan-mode.ts). */
export type { PendingQuestion, QuestionAnswer, QuestionReceipt } from './plan-mode';

/** Workflow type users pass to `temporal workflow start --type`. */
export const WORKFLOW_TYPE = 'agentWorkflow';

/** Task queue when `AGENT_TASK_QUEUE` is unset. */
export const DEFAULT_TASK_QUEUE = 'durable-agent';

/**
 * The queue of one worker host (`AGENT_HOST_ID`) beside the shared one: a session's tools, hooks
 * and snapshots go there, to the host that holds its workspace.
 */
export function hostTaskQueue(taskQueue: string, hostId: string): string {
  return `${taskQueue}@${hostId}`;
}

/** Why a session ended. */
export const TERMINAL_REASONS = [
  'completed',
  'max_turns',
  'max_output_tokens',
  'prompt_too_long',
  'image_error',
  'model_error',
  'aborted_streaming',
  'aborted_tools',
  'stop_hook_prevented',
  'hook_stopped',
  'stop_hook_limit',
  /** Issue 26: the session's spend (its sub-agents' included) reached input `maxBudgetUsd`; stopped at a turn boundary. */
  'max_budget',
  /** Issue 26: the API kept refusing (rate or usage limit) past input `maxRateLimitWaitMs`; the work done is kept. */
  'rate_limited',
  /** Input `outputFormat`: no valid StructuredOutput call after STRUCTURED_OUTPUT_MAX_ATTEMPTS tries (Claude Code's terminal reason; SDK subtype `error_max_structured_output_retries`). */
  'structured_output_retry_exhausted',
] as const;
export type TerminalReason = (typeof TERMINAL_REASONS)[number];

/**
 * Why the loop went on to another model call. `continued_as_new` is shown in the transcript only:
 * the session went on in a new run. `rewind`: the update of that name took the session back to an
 * earlier turn. `workspace_moved`: the session's host was lost and its files were put back on
 * another host (shown in the transcript; the turn goes on there).
 */
export const TRANSITIONS = [
  'next_turn',
  'pause_turn_continue',
  'collapse_drain_retry',
  'reactive_compact_retry',
  'media_strip_retry',
  'model_fallback_retry',
  'max_output_tokens_escalate',
  'max_output_tokens_recovery',
  'stop_hook_blocking',
  'token_budget_continuation',
  'user_message',
  'continued_as_new',
  'rewind',
  'workspace_moved',
  /** Issue 26: a rate limit was waited out (durable timer, status `waiting_rate_limit`); the same call goes again. */
  'rate_limit_retry',
  /** Input `outputFormat`: the model ended its turn without calling StructuredOutput and is told to. */
  'structured_output_retry',
] as const;
export type Transition = (typeof TRANSITIONS)[number];

/** Context edits made before a model call (the context pipeline), recorded per turn. */
export type ContextEdit =
  'tool_result_budget' | 'snip' | 'microcompact' | 'collapse' | 'autocompact' | 'reactive_compact' | 'media_strip';

/** Result of `agentWorkflow`. */
export interface AgentResult {
  reason: TerminalReason;
  turnCount: number;
  finalText: string;
  usage: Usage;
  /** Set when the reason has one: the API's message, the hook's reason, what was interrupted. */
  error?: string;
  /** Files the session changed, from its first snapshot to its last (sessions with durable workspaces). */
  filesChanged?: FileChangeStat[];
  /** The session's last snapshot (sessions with durable workspaces): its files as it left them, in the store. */
  snapshotRef?: string;
  /** A `repo` session: the branch its changes were committed to, and whether it was pushed. */
  branch?: BranchResult;
  /** The store reference of the transcript of the session's last run (JSON `{ entries }`): clients read it with no worker running. */
  transcriptRef?: string;
  /** Input `outputFormat`: the answer, an object valid against its schema (absent when the session gave up or ended otherwise). */
  structuredOutput?: unknown;
}

/** Values of the `AgentStatus` search attribute and of `state.status`. */
export const AGENT_STATUSES = [
  'running_model',
  'running_tools',
  'compacting',
  'waiting_approval',
  /** An AskUserQuestion call waits for `answerQuestion`. */
  'waiting_answer',
  'waiting_input',
  'rewinding',
  'waiting_host',
  'waiting_workdir',
  /** Issue 26: the API refused a model call (429, or 529 with no fallback left): a durable timer waits for its reset. */
  'waiting_rate_limit',
  'finished',
] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** A tool call, as the `state` query and the Temporal UI show it. */
export interface ToolCallView {
  toolUseId: string;
  name: string;
  summary: string;
}

/** A tool call waiting for `approveTool`. */
export interface PendingApproval extends ToolCallView {
  input: unknown;
  /** The call is a sub-agent's (a child workflow's): `approveTool` on this session passes the answer on to it. */
  agent?: { workflowId: string; description: string };
  /**
   * An ExitPlanMode call: the plan a person approves (cut at PLAN_SHOWN_CHARS). `approveTool`
   * may name the `mode` the session goes on in (default `default`).
   */
  plan?: string;
}

/** What a sub-agent tells its parent of its calls waiting for approval (signal `subAgentApprovals`): all of them, each time. */
export interface SubAgentApprovals {
  workflowId: string;
  /** The `Task` call's description. */
  description: string;
  pending: PendingApproval[];
}

/** Query `state`. */
export interface AgentState {
  turn: number;
  model: string;
  status: AgentStatus;
  pendingApprovals: PendingApproval[];
  /** AskUserQuestion calls waiting for `answerQuestion` (absent in sessions that never asked). */
  pendingQuestions?: PendingQuestion[];
  /** The session's permission mode now (input `permissionMode`, then EnterPlanMode and approved plans change it). */
  permissionMode?: PermissionMode;
  queuedMessages: number;
  /** The last short summary of a tool batch, written by the small model. */
  lastToolSummary: string | null;
  lastTransition: Transition | null;
  /** Every transition of the run, in order (the recovery path taken). */
  transitions: Transition[];
  /** Context edits made so far, in order. */
  contextEdits: ContextEdit[];
  estimatedContextTokens: number;
  /** The context window learned from a "prompt is too long: N tokens > M maximum" (M), when one was; compaction fits it from then on. */
  learnedContextWindow?: number;
  usage: Usage;
  currentToolCalls: ToolCallView[];
  reason: TerminalReason | null;
  /** Where the session's commands run: `bwrap` (bubblewrap), `none` (unconfined: the worker's privileges), null before it is known. */
  sandbox: 'bwrap' | 'none' | null;
  /** The workdir on the worker host (its real path), null before the session is prepared. */
  workdir: string | null;
  /** The worker host (`AGENT_HOST_ID`) that holds the workdir: its queue runs the session's tools; null before it is known. */
  host: string | null;
  /** The workspace snapshots of the session's current line of turns: turn 0 is its start. */
  snapshots: SnapshotRecord[];
  /** The model's task list, as its last TodoWrite wrote it (empty until then). */
  todos?: Todo[];
  /** Bash commands run in the background (`run_in_background`): running, ended, stopped or lost; absent when none. */
  backgroundTasks?: BackgroundTaskView[];
  /** Writing sub-agents (`isolation: "worktree"`) of this run, the last 50: working, merged, with conflicts, or not merged. */
  worktrees?: WorktreeChildView[];
  /** The session's MCP servers (only when it has any): connected or failed, and their tools. */
  mcpServers?: McpServerStatus[];
  /** Entries of the trusted repository settings files that cannot run (only when there are any). */
  skippedSettings?: SkippedSetting[];
  /** Rate limits met so far (only once there was one; issue 26). */
  rateLimit?: RateLimitView;
}

/** `state.rateLimit`: the wait now (`until`, null when not waiting) and the session's totals. */
export interface RateLimitView {
  /** When the current wait ends (ISO 8601), while status is `waiting_rate_limit`; else null. */
  until: string | null;
  /** Time waited for rate limits in the whole session, in ms (input `maxRateLimitWaitMs` bounds it). */
  waitedMs: number;
  /** Requests the API refused (429, or 529 with no fallback left) in the whole session. */
  refusals: number;
}

/** One line of the session's log, served by the `transcript` query and printed by our CLI. */
export type TranscriptEntry =
  | { type: 'user'; turn: number; text: string }
  /** A message people sent (signal `userMessage`), in the turn that took it; cut at USER_MESSAGE_SHOWN_CHARS. */
  | { type: 'user_message'; turn: number; text: string }
  /** The worker prepared the session: its real workdir, its sandbox, its instruction files, repository hooks, settings and agent types found and not used. */
  | ({
      type: 'session';
      turn: number;
      workdir: string;
      sandbox: 'bwrap' | 'none';
      /** The network its commands get: mode, allowed domains, warnings (host network granted or refused). */
      network?: PreparedNetwork;
      skippedRepoHooks?: string[];
      skippedSettings?: SkippedSetting[];
      skippedRepoAgents?: string[];
      /** The session's skills (the Skill tool loads them). */
      skills?: string[];
      /** Skill files not used, and why (the repository not trusted, or invalid). */
      skippedSkills?: string[];
      instructionFiles?: string[];
      forkedFrom?: { workflowId: string; turn: number };
    } & McpSessionNote)
  | { type: 'assistant'; turn: number; text: string; stopReason: string; usage: Usage }
  | { type: 'tool_call'; turn: number; toolUseId: string; name: string; summary: string }
  | { type: 'tool_result'; turn: number; toolUseId: string; name: string; isError: boolean; preview: string }
  | { type: 'transition'; turn: number; transition: Transition; detail?: string }
  /** Context edits made; `error` when they could not run and were skipped. */
  | { type: 'context'; turn: number; edits: ContextEdit[]; estimatedTokens: number; error?: string }
  | { type: 'stop_hook'; turn: number; outcome: 'allow' | 'block' | 'prevent'; detail: string }
  /** A hook (PreToolUse, PostToolUse, UserPromptSubmit, SessionStart, …; not Stop) had its say (`report`: it failed, deciding nothing). */
  | {
      type: 'hook';
      turn: number;
      event: ToolHookEvent;
      toolUseId?: string;
      /** `updated_input`, `updated_output`: a hook changed the call or its result; `message`: a hook's `systemMessage`, for people. */
      outcome:
        | 'allow'
        | 'deny'
        | 'ask'
        | 'feedback'
        | 'context'
        | 'blocked'
        | 'stop'
        | 'report'
        | 'updated_input'
        | 'updated_output'
        | 'message';
      detail: string;
    }
  | {
      type: 'approval';
      turn: number;
      toolUseId: string;
      decision: 'allow' | 'deny' | 'timeout';
      feedback?: string;
      /** An approved plan (ExitPlanMode): the mode the session went on in. */
      mode?: PermissionMode;
    }
  /** The session's permission mode changed (EnterPlanMode, an approved plan). */
  | { type: 'permission_mode'; turn: number; mode: PermissionMode; detail: string }
  /** An AskUserQuestion call was answered (update `answerQuestion`). */
  | { type: 'question'; turn: number; toolUseId: string; questions: string[]; answers: Record<string, string> }
  | { type: 'interrupt'; turn: number; stopped: 'model' | 'tools' | 'nothing' }
  | { type: 'tool_summary'; turn: number; text: string }
  /** A signal whose input did not parse was dropped (`problem` says why); the session went on as before. */
  | { type: 'dropped_signal'; turn: number; signal: string; problem: string }
  /** A sub-agent's type asked for tools its parent lacks: left out. In the parent's transcript (at its `Task` call) and the sub-agent's. */
  | { type: 'sub_agent_tools'; turn: number; toolUseId: string; agentType: string; leftOut: string[]; detail: string }
  /**
   * A writing sub-agent (`isolation: "worktree"`) ended: what of its worktree was merged into this
   * session's workdir (`merged` files), what conflicted (`conflicts`, the paths left as they were
   * here), or why nothing was merged (`error`: it did not finish, or the merge failed).
   */
  | {
      type: 'worktree_merge';
      turn: number;
      toolUseId: string;
      workflowId: string;
      worktree: string;
      filesMerged: number;
      conflicts: string[];
      /** Merged with no conflict: the worktree was removed. */
      worktreeRemoved?: boolean;
      error?: string;
    }
  /** The workspace snapshot taken after the turn (its reference and how many files changed), or why it failed. */
  | { type: 'snapshot'; turn: number; ref?: string; filesChanged?: number; error?: string }
  /** The session waited for another session's workdir lease (`waiting`), or lost its own to another (`lost`). */
  | { type: 'workdir_lease'; turn: number; outcome: 'waiting' | 'lost'; detail: string }
  /** A background command started or ended (Bash `run_in_background`): its id, status and what it does. */
  | { type: 'background'; turn: number; taskId: string; status: BackgroundStatus; description: string }
  /**
   * A run made by `temporal workflow reset` put the files back to the snapshot of turn
   * `snapshotTurn` before its first tool or hook (`previousSnapshot`: the files as found), or `error`.
   */
  | {
      type: 'reset';
      turn: number;
      snapshotTurn: number;
      ref: string;
      filesRestored?: number;
      previousSnapshot?: string;
      notRestored?: string[];
      error?: string;
    }
  | { type: 'end'; turn: number; reason: TerminalReason; error?: string };

/** Query `transcript`: `{ fromIndex?, limit? }`. */
export interface TranscriptRequest {
  fromIndex?: number;
  limit?: number;
}

/** What query `transcript` answers. */
export interface TranscriptPage {
  entries: TranscriptEntry[];
  /** Pass as `fromIndex` to get what came after. */
  nextIndex: number;
  total: number;
}

/** Signal `userMessage`. */
export interface UserMessage {
  text: string;
}

/** Update `approveTool`. */
export interface ApprovalDecision {
  toolUseId: string;
  decision: 'allow' | 'deny';
  feedback?: string;
  /** Only for an ExitPlanMode call (`pendingApprovals[].plan`): the mode an approved plan goes on in (default `default`). */
  mode?: ModeAfterPlan;
}

/** What update `approveTool` returns. */
export interface ApprovalReceipt {
  toolUseId: string;
  decision: 'allow' | 'deny';
}

/** Signal and update `interrupt`. */
export interface InterruptRequest {
  reason?: string;
}

/** What update `interrupt` returns once it took effect. */
export interface InterruptResult {
  /** What the interrupt stopped: a model call, tools, or nothing (the session was idle or done). */
  stopped: 'model' | 'tools' | 'nothing';
}

/** Update `rewind`: back to just after turn `turn`'s tool results. */
export interface RewindRequest {
  turn: number;
  /** false: the conversation only; the files stay as they are (default true). */
  files?: boolean;
  /** Overwrite changes made beside the session since its last snapshot (they stay in the store). */
  force?: boolean;
}

/** Update `move`: a `workdir` session waiting for its lost host goes on on `host`, from its last snapshot. */
export interface MoveRequest {
  /** The `AGENT_HOST_ID` of a worker that is up. */
  host: string;
  /** Where the files go on that host (default: the same path); absent or empty. */
  workdir?: string;
}

/** What update `move` returns once the session's files are on the new host. */
export interface MoveResult {
  host: string;
  workdir: string;
  /** The turn whose snapshot was put there. */
  turn: number;
}

/** What update `rewind` returns once the session went back. */
export interface RewindResult {
  turn: number;
  /** Files written, deleted or re-linked (0 with `files: false`). */
  filesRestored: number;
  /** Files over the snapshot size limit that could not be put back. */
  notRestored: string[];
  /** The working tree as it was before the rewind (a snapshot reference), when files were restored. */
  previousSnapshot?: string;
}

/** Query `checkpoint`: what a fork of turn `turn` starts from. */
export interface CheckpointRequest {
  turn: number;
}

/** What query `checkpoint` answers (and input `fork` carries): a turn's conversation and files. */
export interface ForkPoint {
  turn: number;
  /** The snapshot of the files as of that turn. */
  snapshotRef: string;
  /** The stored conversation up to that turn, and the messages of the turn not yet stored in it. */
  conversationRef: string | null;
  messageCount: number;
  pending: ConversationMessage[];
  contextTokens: number;
  /** The turn ended with a message for the model (tool results): the model can go on from it. */
  endsWithUser: boolean;
  model: string;
  /** The files read by then (workdir-relative path → sha256 of the content seen): a fork's Edits of them work. */
  readState?: Record<string, string>;
}

/** Query `diff`: `{ fromTurn?, toTurn? }` (default: the session's start to its last snapshot). */
export interface DiffRequest {
  fromTurn?: number;
  toTurn?: number;
}

/**
 * What query `diff` answers: the two snapshots to compare. A query runs inside the workflow, which
 * reads no files, so `durable-agent diff` renders them from the content store as a unified diff.
 */
export interface DiffRange {
  fromTurn: number;
  toTurn: number;
  fromRef: string;
  toRef: string;
}
