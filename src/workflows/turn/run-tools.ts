/**
 * Carries out the batches of one response: concurrency-safe batches in parallel, other calls
 * alone and in order; after a failing call whose tool says so (Bash), the calls after it are
 * cancelled, not run. Approvals, the calls themselves and what people see come in through
 * `ToolRunner`, so this runs outside a workflow in unit tests.
 */
import type { PlannedToolUse, RunToolOutput } from '../../shared/activity-io';
import { type ToolResult, toolErrorResult } from '../../shared/conversation';
import { MAX_PARALLEL_TOOL_CALLS } from '../../shared/limits';
import type { ApprovalAnswer } from '../session/steering';
import type { HookDenial } from './tool-hooks';
import type { ModeDenial } from './person-tools';
import { cancelsSiblings, partitionToolUses, siblingCancelledResult } from '../core/tool-batches';

/** A deny rule, or the permission mode (plan, dontAsk), refused the call: `message` is its is_error result. */
export interface PermissionDenial {
  decision: 'permission_deny';
  message: string;
}

/** A person allowed the call, maybe with words for the model. */
export interface PersonApproval {
  feedback?: string;
}

export interface ToolRunner {
  /** Asks a person about a call (or its PreToolUse hooks deny it), or answers null when the call needs no approval. */
  approve(call: PlannedToolUse): Promise<ApprovalAnswer | HookDenial | PermissionDenial | ModeDenial | null>;
  /** Runs one call (the tool activity): always a result, even when the activity failed. `approval`: a person allowed it. */
  run(call: PlannedToolUse, approval?: PersonApproval): Promise<RunToolOutput>;
  /** The calls that start now. */
  onBatch(calls: PlannedToolUse[]): void;
  onResult(call: PlannedToolUse, output: RunToolOutput): void;
}

/**
 * `waitForEveryCall` (flag `batchWaitsForEveryCall`): when an interrupt stops a batch, every call of
 * it is waited for until it reports how it ended, so a change that landed is reported as such;
 * before, the batch stopped at the first cancelled call.
 */
export async function runToolUses(
  toolUses: PlannedToolUse[],
  runner: ToolRunner,
  waitForEveryCall = false,
): Promise<void> {
  let failed: PlannedToolUse | undefined;
  for (const batch of partitionToolUses(toolUses, MAX_PARALLEL_TOOL_CALLS)) {
    if (failed) {
      for (const call of batch.calls) runner.onResult(call, { result: siblingCancelledResult(call, failed) });
      continue;
    }
    runner.onBatch(batch.calls);
    await (waitForEveryCall ? allSettled : Promise.all.bind(Promise))(
      batch.calls.map(async (call) => {
        const answer = await runner.approve(call);
        if (answer && answer.decision !== 'allow') {
          runner.onResult(call, { result: refusedResult(call, answer) });
          return;
        }
        // The feedback goes with the call: the activity adds it to the output, stored or inline.
        const output = await runner.run(
          call,
          answer ? { ...(answer.feedback ? { feedback: answer.feedback } : {}) } : undefined,
        );
        runner.onResult(call, output);
        if (!failed && cancelsSiblings(call, output.result)) failed = call;
      }),
    );
  }
}

/** Like Promise.all, but rejects (with the first reason) only once every promise has settled. */
async function allSettled(promises: Promise<void>[]): Promise<void[]> {
  const settled = await Promise.allSettled(promises);
  const rejected = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (rejected) throw rejected.reason;
  return [];
}

function refusedResult(
  call: PlannedToolUse,
  answer: ApprovalAnswer | HookDenial | PermissionDenial | ModeDenial,
): ToolResult {
  if (answer.decision === 'permission_deny') return toolErrorResult(call, answer.message);
  if (answer.decision === 'mode_deny') return toolErrorResult(call, answer.reason);
  if (answer.decision === 'hook_deny')
    return toolErrorResult(call, `A PreToolUse hook denied this tool call, so it was not run: ${answer.reason}`);
  return toolErrorResult(
    call,
    answer.decision === 'timeout'
      ? 'The tool call was not approved in time, so it was not run. Continue without it or try another approach.'
      : `The user denied this tool call, so it was not run.${'feedback' in answer && answer.feedback ? ` Feedback: ${answer.feedback}` : ''}`,
  );
}
