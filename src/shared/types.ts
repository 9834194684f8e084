/**
 * Plain JSON types that cross the workflow/activity boundary.
 * No classes, Maps, Dates or functions: everything here is serialised into Temporal history.
 */

/** Why a session ended. Part of the public result contract. */
export type TerminalReason =
  | 'completed'
  | 'max_turns'
  | 'max_output_tokens'
  | 'prompt_too_long'
  | 'image_error'
  | 'model_error'
  | 'blocking_limit'
  | 'aborted_streaming'
  | 'aborted_tools'
  | 'stop_hook_prevented'
  | 'hook_stopped';

/** Why the loop went on to another model call. */
export type Transition =
  | 'next_turn'
  | 'pause_turn_continue'
  | 'collapse_drain_retry'
  | 'reactive_compact_retry'
  | 'media_strip_retry'
  | 'model_fallback_retry'
  | 'max_output_tokens_escalate'
  | 'max_output_tokens_recovery'
  | 'stop_hook_blocking'
  | 'token_budget_continuation'
  | 'user_message'
  /** Shown in the transcript only: the session went on in a new run (continue-as-new). */
  | 'continued_as_new';

/** Context edits made before a model call (the context pipeline), recorded per turn. */
export type ContextEdit = 'tool_result_budget' | 'snip' | 'microcompact' | 'collapse' | 'autocompact' | 'reactive_compact' | 'media_strip';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
}

/**
 * Text that stays inline when short (readable in the Temporal UI) or lives in the content store,
 * in which case history holds only its reference, its length and a short preview.
 */
export type TextOrRef = { text: string } | { ref: string; chars: number; preview: string };

export interface ToolResult {
  toolUseId: string;
  isError: boolean;
  content: TextOrRef;
  /** The tool that produced it (not sent to the API; lets microcompact pick old results). */
  toolName?: string;
}

/**
 * One message of the conversation as the workflow holds it. Assistant messages live in the
 * content store (their full content blocks as the API returned them); user prompts and tool
 * results are inline when short.
 */
export type ConversationMessage =
  | { role: 'user'; kind: 'text'; content: TextOrRef }
  | { role: 'assistant'; kind: 'assistant'; ref: string; chars: number }
  | { role: 'user'; kind: 'tool_results'; results: ToolResult[] };

/** What the model activity worked out about one `tool_use` block before anything runs. */
export type ToolUsePlan =
  | {
      ok: true;
      /** Whether this call, with this input, may run in parallel with other safe calls. */
      concurrencySafe: boolean;
      /** One line for the Temporal UI, e.g. `Read src/config.js`. */
      summary: string;
      /** Absolute path of the file the call reads or writes, when it targets one. */
      filePath?: string;
    }
  | { ok: false; errorText: string };

export interface PlannedToolUse {
  id: string;
  name: string;
  input: unknown;
  plan: ToolUsePlan;
}

export type ModelStopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded'
  | (string & {});

export interface CallModelInput {
  sessionId: string;
  turn: number;
  model: string;
  maxOutputTokens: number;
  /** Switch to this model after `fallbackAfterOverloads` consecutive overloaded attempts. */
  fallbackModel?: string;
  fallbackAfterOverloads?: number;
  systemRef: string;
  allowedTools: string[];
  workdir: string;
  /** Conversation as sent in the previous call (a node of the stored chain), or null at first. */
  conversationRef: string | null;
  /** Messages added since `conversationRef`. Keeps history per turn independent of context size. */
  append: ConversationMessage[];
}

export type CallModelOutcome =
  | {
      kind: 'response';
      /** The conversation exactly as sent, without the reply. */
      conversationRef: string;
      messageCount: number;
      /** The reply, stored; append `{ role: 'assistant', ref }` to continue from it. */
      assistant: { ref: string; chars: number };
      stopReason: ModelStopReason;
      text: string;
      toolUses: PlannedToolUse[];
      usage: Usage;
      model: string;
    }
  | {
      /** HTTP 400 "prompt is too long" or HTTP 413 request_too_large: the workflow decides. */
      kind: 'prompt_too_long';
      conversationRef: string;
      status: number;
      message: string;
    }
  | {
      /** An image or PDF was rejected for its size. */
      kind: 'media_too_large';
      conversationRef: string;
      message: string;
    }
  | {
      /** Overloaded on `attempts` attempts in a row, and a fallback model is configured. */
      kind: 'overloaded';
      conversationRef: string;
      attempts: number;
      message: string;
    };

/** What `prepareContext` does to the stored conversation before a model call. */
export interface PrepareContextInput {
  sessionId: string;
  workdir: string;
  conversationRef: string | null;
  append: ConversationMessage[];
  /** Context-pipeline steps, each applied only while the estimate stays above `targetTokens`. */
  steps: ('snip' | 'microcompact' | 'collapse' | 'media_strip')[];
  /** Tokens the conversation may hold after the edits (below this, later steps are skipped). */
  targetTokens: number;
  /** Overhead of system prompt and tools, in estimated tokens. */
  baseTokens: number;
}

export interface PrepareContextOutput {
  conversationRef: string;
  /** Estimated tokens of the request after the edits (system and tools included). */
  estimatedTokens: number;
  applied: ContextEdit[];
  messageCount: number;
}

export interface CompactInput {
  sessionId: string;
  workdir: string;
  model: string;
  systemRef: string;
  conversationRef: string | null;
  append: ConversationMessage[];
  /** Files read most recently (last = newest), re-attached after the summary. */
  recentFiles: string[];
  /** Characters the re-attached files may take in all (so they cannot refill the context at once). */
  reattachBudgetChars: number;
  contextWindowTokens: number;
  maxOutputTokens: number;
  reason: 'autocompact' | 'reactive';
}

export interface CompactOutput {
  conversationRef: string;
  estimatedTokens: number;
  summaryChars: number;
  reattachedFiles: string[];
  usage: Usage;
}

export interface FileState {
  path: string;
  sha256: string;
}

export interface RunToolInput {
  sessionId: string;
  toolUseId: string;
  name: string;
  input: unknown;
  workdir: string;
  /** The content hash this session last saw of the file the call targets (none if never read). */
  fileStates: FileState[];
}

export interface RunToolOutput {
  result: ToolResult;
  /** The content hash the session now knows for the file the tool read or wrote. */
  fileState?: FileState;
}

export interface PrepareSessionInput {
  sessionId: string;
  workdir: string;
  /** The input's model; when absent the worker's default (`AGENT_MODEL`) is chosen and recorded. */
  model?: string;
  allowedTools: string[];
  systemPromptAppend?: string;
  prompt: string;
  /** ISO date of the session's start, from workflow time (deterministic). */
  startedAt: string;
}

export interface PrepareSessionOutput {
  /** The workdir's real path (symlinks resolved): every tool checks paths against it. */
  workdir: string;
  /** Stop hooks from `<workdir>/.agent/settings.json`, read once at the start (a snapshot). */
  settingsStopHooks?: { command: string; timeoutMs?: number }[];
  model: string;
  /** Estimated tokens of the system prompt and tool definitions, sent with every request. */
  overheadTokens: number;
  systemRef: string;
  prompt: TextOrRef;
}

/** Result of `agentWorkflow`. Part of the public contract. */
export interface AgentResult {
  reason: TerminalReason;
  turnCount: number;
  finalText: string;
  usage: Usage;
  /** Set when reason is `model_error`: the API's message. */
  error?: string;
}

/** One line of the session's log, served by the `transcript` query and printed by our CLI. */
export type TranscriptEntry =
  | { type: 'user'; turn: number; text: string }
  | { type: 'assistant'; turn: number; text: string; stopReason: string; usage: Usage }
  | { type: 'tool_call'; turn: number; toolUseId: string; name: string; summary: string }
  | { type: 'tool_result'; turn: number; toolUseId: string; name: string; isError: boolean; preview: string }
  | { type: 'transition'; turn: number; transition: Transition; detail?: string }
  | { type: 'context'; turn: number; edits: ContextEdit[]; estimatedTokens: number }
  | { type: 'stop_hook'; turn: number; outcome: 'allow' | 'block' | 'prevent'; detail: string }
  | { type: 'approval'; turn: number; toolUseId: string; decision: 'allow' | 'deny' | 'timeout'; feedback?: string }
  | { type: 'interrupt'; turn: number; stopped: 'model' | 'tools' | 'nothing' }
  | { type: 'tool_summary'; turn: number; text: string }
  | { type: 'end'; turn: number; reason: TerminalReason; error?: string };

export interface AgentState {
  turn: number;
  model: string;
  status: AgentStatus;
  pendingApprovals: PendingApproval[];
  queuedMessages: number;
  /** The last short summary of a tool batch, written by the small model. */
  lastToolSummary: string | null;
  lastTransition: Transition | null;
  /** Every transition of the run, in order (the recovery path taken). */
  transitions: Transition[];
  /** Context edits made so far, in order. */
  contextEdits: ContextEdit[];
  estimatedContextTokens: number;
  usage: Usage;
  currentToolCalls: { toolUseId: string; name: string; summary: string }[];
  reason: TerminalReason | null;
}

/** Value of the `AgentStatus` search attribute and of `state.status`. */
export type AgentStatus = 'running_model' | 'running_tools' | 'compacting' | 'waiting_approval' | 'waiting_input' | 'finished';

export interface PendingApproval {
  toolUseId: string;
  name: string;
  summary: string;
  input: unknown;
}

/** Update `approveTool`. */
export interface ApprovalDecision {
  toolUseId: string;
  decision: 'allow' | 'deny';
  feedback?: string;
}

/** Signal and update `interrupt`. */
export interface InterruptRequest {
  reason?: string;
}

export interface InterruptResult {
  /** What the interrupt stopped: a model call, tools, or nothing (the session was idle or done). */
  stopped: 'model' | 'tools' | 'nothing';
}

export interface StopHookInput {
  sessionId: string;
  workdir: string;
  hooks: { command: string; timeoutMs?: number }[];
  finalText: string;
  stopHookActive: boolean;
}

export type StopHookOutcome =
  | { kind: 'allow'; reports: string[] }
  | { kind: 'block'; reason: string; reports: string[] }
  | { kind: 'prevent'; reason: string; reports: string[] };

export interface ToolBatchSummaryInput {
  calls: { name: string; summary: string; isError: boolean; preview: string }[];
}
