/**
 * What crosses the workflow/activity boundary: each activity's input and output.
 * No classes, Maps, Dates or functions: everything here is serialised into Temporal history.
 */
import type { PreparedSkills } from './skills';
import type { PreparedNetwork, SandboxRequest } from './sandbox';
import type { ContextEdit, TranscriptEntry } from './contract';
import type { ConversationMessage, TextOrRef, ToolResult, Usage } from './conversation';
import type { SessionHookSettings, StopHook } from './hooks';
import type { ToolHookOutcome } from './hook-runs';
import type { McpCallRules, McpModelMark, McpPrepared, McpServers } from './mcp';
import type { PreparedSubAgents, SubAgentsToPrepare } from './sub-agents';
import type { InstructionFilesLoaded, NestedInstructionsLoaded, NestedInstructionsRequest } from './instructions';
import type { SnapshotRecord, TakenSnapshot } from './workspace';
import type { HeldWorkdirLease, TakeWorkdirLeaseOutput, WorkdirLeaseRequest } from './workdir-lease';
import type { TranscriptAppend } from './transcript-chain';
import type { PermissionsPrepared } from './permissions';

/** A file as the session saw it last (its content hash). */
export type FileState = { path: string; sha256: string };

/**
 * A tool's rules for one call, declared by the tool (src/activities/tools/<name>.ts) and copied
 * onto the plan, so workflow code follows them without knowing any tool by name. Only what is
 * set is recorded, to keep history small.
 */
export interface ToolRules extends McpCallRules {
  /** Not read-only: in permission modes that ask (default, acceptEdits), the call waits for a person unless a rule allows it. */
  needsApproval?: true;
  /** An error result cancels the calls after it in the same response (Claude Code's Bash rule). */
  cancelsLaterCallsOnError?: true;
  /** Start-to-close timeout of the tool's activity, when the default does not fit. */
  timeoutMs?: number;
  /** What allow rules match, e.g. `npm test` for `Bash(npm test)` (set when approval may be needed). */
  subject?: string;
  /**
   * The simple commands a Bash call runs, as words (parsed by a shell grammar): a `Bash(…)` rule
   * approves the call only if every one of them matches some rule. Absent in older plans.
   */
  commands?: string[][];
  /** Why no `Tool(pattern)` rule may approve this call (a bare `Tool` rule still can), e.g. `$(…)`. */
  notMatchable?: string;
  /** Why no allow rule at all may approve this call: a person must (a repository settings file). */
  alwaysAsk?: string;
  /** The call reads its target file, which joins the recent files re-attached after a compaction. */
  readsFile?: true;
  /** The call may change files in the workdir (Write, Edit, Bash): its turn ends with a snapshot. */
  changesFiles?: true;
  /**
   * The call's own summary (`Read src/a.ts`) is all a progress view needs of it: a batch of this
   * call alone, when it succeeded, gets that as its tool summary without a small-model call.
   */
  labelsItself?: true;
  /** The workflow runs the call as a child workflow (Agent): a sub-agent, not a tool activity. */
  subAgent?: true;
  /**
   * The called tool's other names (`Task` for a call of `Agent`, and the other way round): hooks'
   * matchers and permission rules that name one of them match the call too. Absent in older plans.
   */
  aliases?: string[];
  /** The call edits the file at the plan's `filePath` (Write, Edit): mode acceptEdits lets it through. */
  editsFiles?: true;
  /** Other names permission rules give the tool: Claude Code's `Edit` rules cover Write, `Read` rules Glob and Grep. */
  ruleNames?: string[];
  /** The absolute path `Read(…)` and `Edit(…)` rules match (the file read or edited, the directory searched). */
  rulePath?: string;
  /** What a `Tool(content)` rule matches when the call has no path or command: a sub-agent's type, `domain:host`. */
  ruleSpecifier?: string;
  /** The call reads the session's MCP servers (their resources): its activity gets their configuration. */
  readsMcpServers?: true;
  /** The call loads one of the session's skills (Skill): its activity is told where they are (`skillsRef`). */
  loadsSkill?: true;
  /**
   * The workflow carries the call out itself, no activity: it changes the session's permission
   * mode (`enter_plan_mode`), or waits for a person (`exit_plan_mode`: the plan's approval;
   * `ask_user_question`: the answers), or takes the session's structured output (`structured_output`,
   * input `outputFormat`). See src/workflows/turn/person-tools.ts.
   */
  sessionControl?: SessionControl;
  /**
   * A background command (issue 26): `start` runs the call as a tool activity the turn does not
   * wait for; `output` and `stop` (TaskOutput, TaskStop) are carried out by the workflow itself.
   * See src/workflows/turn/background-tasks.ts.
   */
  background?: BackgroundRule;
}

/** What a call does with background commands (ToolRules.background). */
export type BackgroundRule = 'start' | 'output' | 'stop';

/** What a session-control call does (ToolRules.sessionControl). */
export type SessionControl = 'enter_plan_mode' | 'exit_plan_mode' | 'ask_user_question' | 'structured_output';

/**
 * The previous turn's end, for rewinds: the first `turnEnd` messages of `append` close it. The
 * activity stores them as a node of their own and returns it as `checkpointRef`, the conversation
 * "just after that turn's tool results", without the messages travelling through history again.
 */
export interface TurnEndMark {
  turnEnd?: number;
}

export type CheckpointMark = { checkpointRef?: string };

/**
 * The transcript entries (and snapshot changes) the session added since its last stored node: the
 * activity stores them as the next node first thing (shared/transcript-chain.ts) and returns its
 * reference as `transcriptRef`, so the transcript never travels through history whole.
 */
export interface TranscriptMark {
  transcriptAppend?: TranscriptAppend;
}

export type TranscriptStored = { transcriptRef?: string };

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
      /** Absent in plans recorded before the rules travelled with them (see workflows/core/tool-rules.ts). */
      rules?: ToolRules;
    }
  | { ok: false; errorText: string; rules?: ToolRules };

export interface PlannedToolUse {
  id: string;
  name: string;
  input: unknown;
  plan: ToolUsePlan;
}

/** What runToolHooks returns: the hooks' outcome, and the call a PreToolUse hook's `updatedInput` makes. */
export interface ToolHookResult extends ToolHookOutcome {
  /**
   * PreToolUse: a hook's `updatedInput` (the last one's, of several), planned again as the call it
   * makes: validated against the tool's schema (an invalid one is a plan that is not ok, naming the
   * hook) and with its rules recomputed, since approval of `echo one` says nothing of `rm -rf`.
   */
  updatedCall?: PlannedToolUse;
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

export interface CallModelInput extends TurnEndMark, McpModelMark, TranscriptMark {
  /** The session's turn (its model call's number): live output is labelled with it. */
  turn?: number;
  model: string;
  maxOutputTokens: number;
  /** Switch to this model after `fallbackAfterOverloads` consecutive overloaded attempts. */
  fallbackModel?: string;
  fallbackAfterOverloads: number;
  systemRef: string;
  allowedTools: string[];
  workdir: string;
  /** Conversation as sent in the previous call (a node of the stored chain), or null at first. */
  conversationRef: string | null;
  /** Messages added since `conversationRef`. Keeps history per turn independent of context size. */
  append: ConversationMessage[];
  /** The results of one message together, in characters; set only below the default (small windows). */
  resultsPerMessageMaxChars?: number;
  /** Input `network`, when the session set it: a session without network is offered no web tools. */
  network?: SandboxRequest['network'];
  /** The session's skills (a stored SkillEntry[]): the Skill tool is offered only with them. */
  skillsRef?: string;
  /**
   * Set by workflows with the `rate-limit-wait` patch: a rate limit (429, or 529 with no fallback
   * left) comes back as a `rate_limited` outcome for the workflow's timer, not as activity retries.
   */
  rateLimitsInWorkflow?: true;
  /** Input `outputFormat`'s schema (sessions that asked for structured output): the StructuredOutput tool is offered, its calls validated against it. */
  outputSchema?: Record<string, unknown>;
}

export type CallModelOutcome = CheckpointMark &
  TranscriptStored &
  (
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
        /** The model that answered (for people reading the history). */
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
      }
    | RateLimitedOutcome
  );

/**
 * A rate limit for the workflow to wait out (input `rateLimitsInWorkflow`): refused by the API
 * (429, or 529 with no fallback left: `cause`), or not sent because another call of the worker
 * on the same key and model was refused until a reset to come. `waitMs`: what the API asked for,
 * from its response (null: nothing said, the workflow backs off).
 */
export interface RateLimitedOutcome {
  kind: 'rate_limited';
  conversationRef: string;
  cause: 'rate_limit' | 'overloaded';
  refused: boolean;
  waitMs: number | null;
  message: string;
}

/** What `prepareContext` does to the stored conversation before a model call. */
export interface PrepareContextInput extends TurnEndMark {
  conversationRef: string | null;
  append: ConversationMessage[];
  /** Context-pipeline steps, each applied only while the estimate stays above `targetTokens`. */
  steps: ('snip' | 'microcompact' | 'collapse' | 'media_strip')[];
  /** Tokens the conversation may hold after the edits (below this, later steps are skipped). */
  targetTokens: number;
  /** Overhead of system prompt and tools, in estimated tokens. */
  baseTokens: number;
}

export interface PrepareContextOutput extends CheckpointMark {
  conversationRef: string;
  /** Estimated tokens of the request after the edits (system and tools included). */
  estimatedTokens: number;
  applied: ContextEdit[];
  messageCount: number;
}

export interface CompactInput extends TurnEndMark, McpModelMark {
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

export interface CompactOutput extends CheckpointMark {
  conversationRef: string;
  estimatedTokens: number;
  /** For people reading the history: how long the summary is and which files came back with it. */
  summaryChars: number;
  reattachedFiles: string[];
  usage: Usage;
}

export interface RunToolInput extends NestedInstructionsRequest {
  sessionId: string;
  toolUseId: string;
  name: string;
  input: unknown;
  workdir: string;
  /** The content hash this session last saw of the file the call targets (none if never read). */
  fileStates: FileState[];
  /** What the person who approved the call added: it follows the tool's output in the result. */
  approvalFeedback?: string;
  /** One result's budget in characters; set only below the default (small windows). */
  resultMaxChars?: number;
  /** What the session asks of its commands' sandbox (input `sandboxEnv`, `network`), when anything. */
  sandbox?: SandboxRequest;
  /** A person approved this very call (permissionMode "ask"): a guarded change may go ahead. */
  approved?: true;
  /**
   * The session's last snapshot (calls that change files, durable sessions). The call snapshots
   * the workspace over it when it is done (no activity of its own, no extra workflow task); a
   * command retried after its worker died compares the workspace with it instead of running again.
   */
  snapshotRef?: string;
  /**
   * The call had started (activity `activityId`) on the session's host, which was then lost:
   * made again, it counts as a retry (a command reports what changed instead of running again).
   * `moved`: the session moved, and the workspace is the snapshot taken before the call;
   * otherwise the host came back, and the lost attempt's journal entry is this call's.
   */
  resumed?: { activityId: string; moved: boolean };
  /** The session's MCP servers, for a call whose rules say it reads them (`readsMcpServers`). */
  mcpServers?: McpServers;
  /** The session's skills, for a call that loads one (Skill). */
  skillsRef?: string;
}

export interface RunToolOutput extends NestedInstructionsLoaded {
  result: ToolResult;
  /** The content hash the session now knows for the file the tool read or wrote. */
  fileState?: FileState;
  /** The workspace as the call left it (when it was asked to snapshot it and could). */
  snapshot?: TakenSnapshot;
}

export interface PrepareSessionInput extends SubAgentsToPrepare {
  workdir: string;
  /** The input's model; when absent the worker's default (`AGENT_MODEL`) is chosen and recorded. */
  model?: string;
  allowedTools: string[];
  systemPromptAppend?: string;
  /** The task: inline, or (input `promptRef`) in the store, after `promptIntro` when set (a fork's). */
  prompt?: string;
  promptRef?: string;
  promptIntro?: string;
  /** ISO date of the session's start, from workflow time (deterministic). */
  startedAt: string;
  /** Input `trustRepoHooks`: the repository's own hooks may run. */
  trustRepoHooks?: boolean;
  /** What the session asks of its commands' sandbox: the worker says what network that gives them. */
  sandbox?: SandboxRequest;
  /** Take the workdir's lease, held until the session ends (a new `workdir` session's). */
  workdirLease?: WorkdirLeaseRequest;
}

export interface PrepareSessionOutput
  extends
    PreparedSubAgents,
    PreparedSkills,
    McpPrepared,
    SessionHookSettings,
    InstructionFilesLoaded,
    PermissionsPrepared {
  /** The workdir's real path (symlinks resolved): every tool checks paths against it. */
  workdir: string;
  /** Stop hooks from the repository's settings, read once at the start (a snapshot); only when trusted. */
  settingsStopHooks?: StopHook[];
  /** Settings files whose hooks were found and not trusted, so not run (shown in the transcript). */
  skippedRepoHooks?: string[];
  /** Where the preparing worker runs commands (absent in sessions prepared before sandboxes). */
  sandbox?: 'bwrap' | 'none';
  /** The network its commands get (absent in sessions prepared before network modes). */
  network?: PreparedNetwork;
  /** The host that holds the workdir (`AGENT_HOST_ID`): its queue gets the workspace activities (absent before hosts). */
  host?: string;
  /** A `repo` session: where its clone came from, the commit it started at, the branch it commits to. */
  repo?: { url: string; commit: string; branch: string; moves?: number };
  /** The workdir's lease, held by the session (workdir-lease.ts); carried across continue-as-new. */
  workdirLease?: HeldWorkdirLease;
  /** What taking the lease asked for (`PrepareSessionInput.workdirLease`) came to; the workflow keeps it as `workdirLease`. */
  workdirLeaseTaken?: TakeWorkdirLeaseOutput;
  model: string;
  /** Estimated tokens of the system prompt and tool definitions, sent with every request. */
  overheadTokens: number;
  systemRef: string;
  prompt: TextOrRef;
}

export interface CloseSessionInput extends TranscriptMark {
  sessionId: string;
  /** The session's workdir lease, released once the rest is done (a session-long one: see HeldWorkdirLease). */
  workdirLease?: HeldWorkdirLease;
  /**
   * Sessions recorded before the transcript was stored per step: the run's transcript and
   * snapshots, kept in the store for clients with no worker to query. Others send the last
   * entries only (`transcriptAppend`).
   */
  transcript?: TranscriptEntry[];
  snapshots?: SnapshotRecord[];
}

/** `transcriptRef`: where they are stored (the chain's last node, or JSON `{ entries, snapshots }` before it). */
export type CloseSessionOutput = TranscriptStored;

/** The stop hooks' activity (runStopHooks): its input and outcome live with the other hooks. */
export type { StopHookInput, StopHookOutcome } from './hook-runs';

export interface ToolBatchSummaryInput {
  calls: { name: string; summary: string; isError: boolean; preview: string }[];
}
