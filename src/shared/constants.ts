/**
 * Names and defaults that are part of the public contract (see README "Configuration").
 * Plain constants only: this file is imported by workflow code.
 */

/** Workflow type users pass to `temporal workflow start --type`. */
export const WORKFLOW_TYPE = 'agentWorkflow';

/** Task queue when `AGENT_TASK_QUEUE` is unset. */
export const DEFAULT_TASK_QUEUE = 'durable-agent';
export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_TEMPORAL_NAMESPACE = 'default';

/** Loop defaults. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
export const DEFAULT_MAX_TURNS = 500;

/** Tool execution limits (Claude Code's values). */
export const MAX_PARALLEL_TOOL_CALLS = 10;
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
export const BASH_MAX_OUTPUT_CHARS = 30_000;
export const READ_DEFAULT_LINE_LIMIT = 2000;
export const READ_MAX_LINE_CHARS = 2000;
export const SEARCH_RESULT_LIMIT = 1000;

/**
 * Text up to this size stays inline in workflow history (readable in the Temporal UI);
 * anything longer goes to the content store and history holds a reference.
 */
export const INLINE_TEXT_LIMIT = 2048;

/**
 * Heartbeat timeout of every activity. Activities heartbeat every few seconds while they run,
 * so a killed worker's in-flight activity is noticed and retried within this many seconds.
 */
export const ACTIVITY_HEARTBEAT_TIMEOUT_MS = 10_000;
export const ACTIVITY_HEARTBEAT_INTERVAL_MS = 2_000;

/** Error types carried by `ApplicationFailure.type` (stable: tools may match on them). */
export const ErrorType = {
  InvalidWorkflowInput: 'InvalidWorkflowInput',
  InvalidWorkdir: 'InvalidWorkdir',
  MissingApiKey: 'MissingApiKey',
  ModelInvalidRequest: 'ModelInvalidRequest',
  ModelAuthentication: 'ModelAuthentication',
  ModelNotFound: 'ModelNotFound',
  ModelRateLimited: 'ModelRateLimited',
  ModelOverloaded: 'ModelOverloaded',
  ModelServerError: 'ModelServerError',
  ModelConnectionError: 'ModelConnectionError',
  ModelMalformedResponse: 'ModelMalformedResponse',
  ContentMissing: 'ContentMissing',
} as const;
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/** Failures of these types are not worth retrying: the same request fails the same way. */
export const NON_RETRYABLE_MODEL_ERRORS: readonly string[] = [
  ErrorType.ModelInvalidRequest,
  ErrorType.ModelAuthentication,
  ErrorType.ModelNotFound,
  ErrorType.MissingApiKey,
];
