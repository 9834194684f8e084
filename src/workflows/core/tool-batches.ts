import type { PlannedToolUse } from '../../shared/activity-io';
import { type ToolResult, toolErrorResult } from '../../shared/conversation';
import { rulesOf } from './tool-rules';

export interface ToolBatch {
  /** True when every call may run at the same time (consecutive concurrency-safe calls). */
  parallel: boolean;
  calls: PlannedToolUse[];
}

/**
 * Splits the `tool_use` blocks of one response into batches, keeping their order: consecutive
 * concurrency-safe calls form parallel batches of at most `maxParallel`; every other call
 * (unsafe, or rejected at planning) is a batch of its own.
 */
export function partitionToolUses(toolUses: readonly PlannedToolUse[], maxParallel: number): ToolBatch[] {
  const batches: ToolBatch[] = [];
  for (const call of toolUses) {
    const safe = call.plan.ok && call.plan.concurrencySafe;
    const last = batches[batches.length - 1];
    if (safe && last?.parallel && last.calls.length < maxParallel) {
      last.calls.push(call);
    } else {
      batches.push({ parallel: safe, calls: [call] });
    }
  }
  return batches;
}

/** A failing call of a tool that says so (Bash) cancels the calls after it in the same response. */
export function cancelsSiblings(call: PlannedToolUse, result: ToolResult): boolean {
  return rulesOf(call).cancelsLaterCallsOnError === true && result.isError;
}

export function siblingCancelledResult(call: PlannedToolUse, failed: PlannedToolUse): ToolResult {
  const what = failed.plan.ok ? failed.plan.summary : failed.name;
  return toolErrorResult(call, `Cancelled: parallel tool call ${what} errored, so this call was not run.`);
}

/** What a call stopped by an interrupt (or the workflow's cancellation) tells the model. */
export const STOPPED_BY_INTERRUPT = 'Interrupted by the user: the tool call was stopped before it finished.';

export function interruptedResult(call: PlannedToolUse, why: string): ToolResult {
  return toolErrorResult(call, why);
}

/**
 * Exactly one result per `tool_use`, in the order of the `tool_use` blocks: the API rejects a
 * conversation in which any `tool_use` lacks its `tool_result`. A call with no result (which
 * should not happen) gets one that says so rather than breaking the conversation.
 */
export function orderToolResults(
  toolUses: readonly PlannedToolUse[],
  results: ReadonlyMap<string, ToolResult>,
): ToolResult[] {
  return toolUses.map(
    (call) =>
      results.get(call.id) ??
      interruptedResult(call, 'The tool call produced no result (internal error); try it again.'),
  );
}
