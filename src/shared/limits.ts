/**
 * Every default and limit of the loop, its recovery layers, steering and tools, in one place
 * (the docs' tables quote them). Plain constants only: workflow code imports this file.
 * Limits that only one tool uses live in that tool's file; model limits in models.ts.
 */

/** Loop defaults. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
/**
 * Input `maxOutputTokens` above this is rejected; below it, the loop caps each request at the
 * model's own limit (models.ts), so a value the model cannot honour never fails mid-session.
 */
export const MAX_OUTPUT_TOKENS_ACCEPTED = 128_000;
export const DEFAULT_MAX_TURNS = 500;

/** Recovery layers (Claude Code's values; see docs/context-recovery.md). */
export const DEFAULT_FALLBACK_AFTER_OVERLOADS = 3;
export const ESCALATED_MAX_OUTPUT_TOKENS = 64_000;
/** Output budget of a compaction's summary. */
export const COMPACTION_MAX_OUTPUT_TOKENS = 16_000;
export const MAX_OUTPUT_TOKENS_RECOVERY_LIMIT = 3;
export const AUTOCOMPACT_FAILURE_LIMIT = 3;
/** Autocompact threshold: context window − min(max output, this) − AUTOCOMPACT_BUFFER_TOKENS. */
export const AUTOCOMPACT_OUTPUT_RESERVE_TOKENS = 20_000;
export const AUTOCOMPACT_BUFFER_TOKENS = 13_000;
/** …but never below this share of the window (a small window would otherwise compact every turn). */
export const AUTOCOMPACT_FLOOR_WINDOW_SHARE = 0.25;
/** A learned window's autocompact reserves (patch `compaction-fits`): output and buffer as shares of it. */
export const LEARNED_WINDOW_OUTPUT_SHARE = 0.25;
export const LEARNED_WINDOW_BUFFER_SHARE = 0.1;
/** The cheaper edits (snip, microcompact) start at this share of the autocompact threshold. */
export const CONTEXT_EDIT_THRESHOLD_RATIO = 0.8;
/** Above this many messages the history counts as long: snip applies whatever the tokens. */
export const SNIP_MAX_MESSAGES = 400;
/** Snip keeps this many of the most recent messages; collapse (on prompt-too-long) far fewer. */
export const SNIP_KEEP_RECENT_MESSAGES = 200;
export const COLLAPSE_KEEP_RECENT_MESSAGES = 6;
/** Microcompact keeps this many of the most recent compactable tool results. */
export const MICROCOMPACT_KEEP_RECENT_RESULTS = 5;
export const CLEARED_TOOL_RESULT = '[Old tool result content cleared]';
/** Tool-result budget: one result over this goes to `<workdir>/.agent/tool-results/`. */
export const TOOL_RESULT_MAX_CHARS = 50_000;
/** …and the results of one message together are capped at this. */
export const TOOL_RESULTS_PER_MESSAGE_MAX_CHARS = 200_000;
export const TOOL_RESULT_PREVIEW_CHARS = 2_000;
/**
 * Both budgets shrink with a small context window: one result takes at most this share of the
 * window, one message's results this share (a 32K-token window gets 12,800 and 32,000 chars).
 */
export const TOOL_RESULT_WINDOW_SHARE = 0.1;
export const TOOL_RESULTS_PER_MESSAGE_WINDOW_SHARE = 0.25;
/** Re-attached after a compaction: at most this many files, ~5K tokens each, ~50K in all. */
export const COMPACT_REATTACH_FILES = 5;
export const COMPACT_REATTACH_FILE_CHARS = 20_000;
export const COMPACT_REATTACH_TOTAL_CHARS = 200_000;
export const CHARS_PER_TOKEN = 4;

/** Steering (see docs/steering.md). */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 60 * 60_000;

/**
 * Input `hostLossTimeoutMs`: a workspace activity that no worker of its host picks up within this
 * long means the host is lost (a `repo` session then moves, a `workdir` session waits). Longer
 * than a host's ordinary queueing delay, short enough that a dead host costs minutes, not hours.
 */
export const DEFAULT_HOST_LOSS_TIMEOUT_MS = 120_000;
export const STOP_HOOK_DEFAULT_TIMEOUT_MS = 60_000;
export const STOP_HOOK_MAX_TIMEOUT_MS = 600_000;
/** A stop hook may block the end of a turn this many times in a row, then the run ends (`stop_hook_limit`). */
export const STOP_HOOK_CONSECUTIVE_BLOCK_LIMIT = 8;
/** Tool hooks (PreToolUse, PostToolUse, UserPromptSubmit) take the stop hooks' timeouts; what one event's hooks add for the model is cut at this. */
export const HOOK_FEEDBACK_MAX_CHARS = 10_000;

/**
 * Instruction files (AGENTS.md, CLAUDE.md): each is cut at this many characters (Claude Code
 * warns above 40,000), and those of the system prompt together at the second, with a note.
 */
export const INSTRUCTION_FILE_MAX_CHARS = 40_000;
export const INSTRUCTION_FILES_MAX_CHARS = 100_000;
export const TOKEN_BUDGET_COMPLETION_RATIO = 0.9;
export const TOKEN_BUDGET_MIN_CONTINUATIONS_FOR_DIMINISHING = 3;
export const TOKEN_BUDGET_DIMINISHING_DELTA_TOKENS = 500;

/** Tool execution limits (Claude Code's values). */
export const MAX_PARALLEL_TOOL_CALLS = 10;
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** A command may run for its whole timeout: its activity is given this much more. */
export const BASH_ACTIVITY_MARGIN_MS = 60_000;

/**
 * Text up to this size stays inline in workflow history (readable in the Temporal UI);
 * anything longer goes to the content store and history holds a reference.
 */
export const INLINE_TEXT_LIMIT = 2048;

/**
 * Heartbeat timeout of every activity that heartbeats: a killed worker's in-flight call is
 * noticed and retried this long after its last heartbeat. Activities heartbeat several times a
 * second, and the worker sends a heartbeat at most every HEARTBEAT_THROTTLE_MS, which is also how
 * soon a cancellation (an interrupt) reaches a running call: it arrives in a heartbeat's answer.
 */
export const ACTIVITY_HEARTBEAT_TIMEOUT_MS = 1_500;
export const ACTIVITY_HEARTBEAT_INTERVAL_MS = 250;
export const HEARTBEAT_THROTTLE_MS = 250;
/**
 * A workflow task waits this long on its worker's sticky queue before any worker may take it: a
 * dead worker's sessions move on after this, not after Temporal's default of 10 s. A worker with
 * hundreds of sessions in flight on few cores may want longer (AGENT_STICKY_QUEUE_TIMEOUT_MS).
 */
export const STICKY_QUEUE_TIMEOUT_MS = 1_000;
/** First retry of a tool call whose worker died (or that failed for the infrastructure). */
export const TOOL_RETRY_INITIAL_INTERVAL_MS = 100;

/**
 * A model call's start-to-close timeout: at least this, and long enough for `max_tokens` at the
 * slowest output rate we expect plus the time to first token (see modelCallOptions).
 */
export const MODEL_CALL_MIN_TIMEOUT_MS = 10 * 60_000;
export const MODEL_CALL_OVERHEAD_MS = 2 * 60_000;
export const SLOWEST_OUTPUT_TOKENS_PER_SECOND = 20;

/**
 * Input `prompt` over this many UTF-8 bytes is refused: the start event holds the input whole
 * (Temporal warns at 256 KB and refuses 2 MB), and every run that continues as new carries it
 * again. A longer prompt is stored first and passed as `promptRef`; `durable-agent run` does so.
 */
export const MAX_INLINE_PROMPT_BYTES = 64 * 1024;

/** A message sent with `send` (signal `userMessage`) is shown in the transcript up to this many characters. */
export const USER_MESSAGE_SHOWN_CHARS = 2_000;

/** Input `maxRateLimitWaitMs` unset: a session waits out rate limits for 6 hours in all before it ends `rate_limited`. */
export const DEFAULT_MAX_RATE_LIMIT_WAIT_MS = 6 * 60 * 60_000;
/** A rate limit whose answer names no wait: backoff from 1 s, doubling, at most 60 s. */
export const RATE_LIMIT_BACKOFF_INITIAL_MS = 1_000;
export const RATE_LIMIT_BACKOFF_MAX_MS = 60_000;
