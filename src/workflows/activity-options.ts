/**
 * Activity proxies and their options. Every long activity heartbeats, so a killed worker's call
 * is retried within seconds; model-facing retries are Temporal's, so each attempt shows in the UI.
 */
import { ActivityCancellationType, type ActivityOptions, proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import type { PlannedToolUse } from '../shared/activity-io';
import { ErrorType, NON_RETRYABLE_MODEL_ERRORS } from '../shared/errors';
import {
  ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  COMPACTION_MAX_OUTPUT_TOKENS,
  MODEL_CALL_MIN_TIMEOUT_MS,
  MODEL_CALL_OVERHEAD_MS,
  SLOWEST_OUTPUT_TOKENS_PER_SECOND,
  TOOL_RETRY_INITIAL_INTERVAL_MS,
} from '../shared/limits';
import { rulesOf } from './core/tool-rules';
import { LEASE_KEEPER_HEARTBEAT_TIMEOUT_MS } from '../shared/workdir-lease';

export const SESSION_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: [ErrorType.InvalidWorkdir, ErrorType.MissingApiKey] },
};

export const MODEL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: MODEL_CALL_MIN_TIMEOUT_MS,
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [...NON_RETRYABLE_MODEL_ERRORS, ErrorType.ContentMissing],
  },
};

/**
 * A model call's options: its overall timeout sized from `max_tokens` at a slow but ordinary
 * output rate (an escalated 64,000-token reply takes well over 10 minutes); a dead worker is
 * noticed by the heartbeat timeout, not by this one.
 */
export function modelCallOptions(maxOutputTokens: number): ActivityOptions {
  const streaming = Math.ceil((maxOutputTokens / SLOWEST_OUTPUT_TOKENS_PER_SECOND) * 1000);
  return {
    ...MODEL_OPTIONS,
    startToCloseTimeout: Math.max(MODEL_CALL_MIN_TIMEOUT_MS, MODEL_CALL_OVERHEAD_MS + streaming),
  };
}

export const COMPACT_OPTIONS: ActivityOptions = {
  ...modelCallOptions(COMPACTION_MAX_OUTPUT_TOKENS),
  retry: {
    ...MODEL_OPTIONS.retry,
    maximumAttempts: 5,
    nonRetryableErrorTypes: [...NON_RETRYABLE_MODEL_ERRORS, ErrorType.ContentMissing, ErrorType.CompactionFailed],
  },
};

export const TOOL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: {
    initialInterval: TOOL_RETRY_INITIAL_INTERVAL_MS,
    maximumAttempts: 5,
    nonRetryableErrorTypes: [ErrorType.ContentMissing],
  },
};

export const CONTEXT_OPTIONS: ActivityOptions = TOOL_OPTIONS;

/**
 * A tool call's options: its summary in the UI, and the timeout its tool asks for (a command's
 * own timeout, plus margin). `waitForCancellation` (flag `cancellationEndsWithResult`): an interrupted
 * call is waited for until it reports how it ended, so what it did is known (the SDK's default,
 * TRY_CANCEL, moves on at once while the call may still be changing files).
 */
export function toolActivityOptions(
  call: PlannedToolUse,
  summary: string,
  waitForCancellation = false,
): ActivityOptions {
  const timeoutMs = rulesOf(call).timeoutMs;
  return {
    ...TOOL_OPTIONS,
    summary,
    ...(timeoutMs ? { startToCloseTimeout: timeoutMs } : {}),
    ...(waitForCancellation ? { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED } : {}),
  };
}

export const { prepareSession } = proxyActivities<AgentActivities>(SESSION_OPTIONS);
export const { callModel } = proxyActivities<AgentActivities>(MODEL_OPTIONS);
export const { compactConversation } = proxyActivities<AgentActivities>(COMPACT_OPTIONS);
export const { prepareContext } = proxyActivities<AgentActivities>(CONTEXT_OPTIONS);
export const { runTool } = proxyActivities<AgentActivities>(TOOL_OPTIONS);

export const STOP_HOOK_OPTIONS: ActivityOptions = {
  // Hooks have their own timeouts (at most 10 minutes each); the activity outlives them.
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
};

export const SUMMARY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
};

/**
 * Cleanup when the session ends: quick, and not worth holding the result for long — nor forever
 * when the session's host is gone (it runs on that host's queue): it gives up after 5 minutes.
 */
export const CLOSE_SESSION_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
};

/** Tool hooks (PreToolUse, PostToolUse, UserPromptSubmit) have the stop hooks' options. */
export const { runStopHooks, runToolHooks } = proxyActivities<AgentActivities>(STOP_HOOK_OPTIONS);
export const { closeSession } = proxyActivities<AgentActivities>(CLOSE_SESSION_OPTIONS);
export const { summarizeToolBatch } = proxyActivities<AgentActivities>(SUMMARY_OPTIONS);

/** Snapshots walk the whole working tree: heartbeats keep a long first one alive. */
export const WORKSPACE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: {
    initialInterval: '1 second',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [ErrorType.ContentMissing, ErrorType.InvalidWorkdir],
  },
};

export const { snapshotWorkspace, restoreWorkspace, checkWorkspace, materializeSnapshot, diffSnapshots } =
  proxyActivities<AgentActivities>(WORKSPACE_OPTIONS);

/**
 * Writing sub-agents' worktrees (issue 27): the copy of the parent's snapshot, and the merge back
 * (journaled: a retry applies the same plan). Both walk whole trees, so they heartbeat like snapshots.
 */
export const WORKTREE_OPTIONS: ActivityOptions = WORKSPACE_OPTIONS;

export const { createWorktree, mergeWorktree } = proxyActivities<AgentActivities>(WORKTREE_OPTIONS);

/**
 * `repo` sessions: a clone (or a move's clone and restore) and the branch's commit and push.
 * A failed clone is retried twice (a network hiccup), a ref that does not exist is not.
 */
export const REPOSITORY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { initialInterval: '1 second', maximumAttempts: 3, nonRetryableErrorTypes: [ErrorType.ContentMissing] },
};

export const { cloneRepository, commitBranch } = proxyActivities<AgentActivities>(REPOSITORY_OPTIONS);

/** Asking a lost host whether it is back: the call waits in the host's queue until a worker of it polls. */
export const PROBE_OPTIONS: ActivityOptions = { startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 1 } };

/** How long one probe waits in a lost host's queue before another takes its place. */
export const PROBE_WAIT_MS = 24 * 60 * 60_000;

export const { probeHost } = proxyActivities<AgentActivities>(PROBE_OPTIONS);

/** Taking and releasing a workdir lease: one quick store call each. */
export const WORKDIR_LEASE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 5, nonRetryableErrorTypes: [ErrorType.InvalidWorkdir] },
};

/**
 * Keeping a workdir lease: one activity for the whole run, renewing the lease while it
 * heartbeats, on its host's lease queue (leaseTaskQueue). A dead worker's keeper is retried (without end) on another worker of the host;
 * ending it after a day only starts a fresh attempt.
 */
export const WORKDIR_LEASE_KEEPER_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 day',
  heartbeatTimeout: LEASE_KEEPER_HEARTBEAT_TIMEOUT_MS,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [ErrorType.WorkdirLeaseLost],
  },
};

export const { takeWorkdirLease, releaseWorkdirLease } = proxyActivities<AgentActivities>(WORKDIR_LEASE_OPTIONS);
export const { keepWorkdirLease } = proxyActivities<AgentActivities>(WORKDIR_LEASE_KEEPER_OPTIONS);
