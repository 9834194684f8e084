/**
 * Carries out a batch plan: concurrency-safe batches as parallel activities, other calls alone
 * and in order; after a failing Bash call the remaining calls are cancelled, not run.
 */
import { isCancellation, workflowInfo } from '@temporalio/workflow';
import type { PlannedToolUse, RunToolOutput } from '../shared/activity-io';
import type { AgentState } from '../shared/contract';
import { MAX_PARALLEL_TOOL_CALLS } from '../shared/limits';
import { rulesOf } from './tool-rules';
import { runTool, TOOL_OPTIONS } from './activity-options';
import { failureMessage } from './failures';
import { fileStatesFor, type LoopState } from './loop';
import type { ApprovalAnswer } from './steering';
import { cancelsSiblings, partitionToolUses, siblingCancelledResult } from './tool-batches';

/** Asks a person about a call, or answers null when the call needs no approval. */
export type Approver = (call: PlannedToolUse) => Promise<ApprovalAnswer | null>;

export async function runToolUses(
  currentState: () => LoopState,
  toolUses: PlannedToolUse[],
  view: AgentState,
  onResult: (call: PlannedToolUse, output: RunToolOutput) => void,
  approve: Approver = async () => null,
): Promise<void> {
  let failedBash: PlannedToolUse | undefined;
  for (const batch of partitionToolUses(toolUses, MAX_PARALLEL_TOOL_CALLS)) {
    if (failedBash) {
      for (const call of batch.calls) onResult(call, { result: siblingCancelledResult(call, failedBash) });
      continue;
    }
    view.currentToolCalls = batch.calls.map((call) => ({ toolUseId: call.id, name: call.name, summary: summaryOf(call) }));
    await Promise.all(
      batch.calls.map(async (call) => {
        const answer = await approve(call);
        if (answer && answer.decision !== 'allow') {
          onResult(call, { result: refusedResult(call, answer) });
          return;
        }
        const output = await runOneTool(currentState(), call);
        if (answer?.feedback && 'text' in output.result.content) {
          output.result.content = { text: `${output.result.content.text}\n\nUser feedback on approval: ${answer.feedback}` };
        }
        onResult(call, output);
        if (!failedBash && cancelsSiblings(call, output.result)) failedBash = call;
      }),
    );
  }
}

async function runOneTool(state: LoopState, call: PlannedToolUse): Promise<RunToolOutput> {
  if (!call.plan.ok) {
    return { result: { toolUseId: call.id, isError: true, content: { text: call.plan.errorText }, toolName: call.name } };
  }
  const timeoutMs = rulesOf(call).timeoutMs;
  try {
    return await runTool.executeWithOptions(
      {
        ...TOOL_OPTIONS,
        summary: call.plan.summary,
        ...(timeoutMs ? { startToCloseTimeout: timeoutMs } : {}),
      },
      [
        {
          sessionId: workflowInfo().workflowId,
          toolUseId: call.id,
          name: call.name,
          input: call.input,
          workdir: state.workdir,
          fileStates: fileStatesFor(state, call),
        },
      ],
    );
  } catch (error) {
    if (isCancellation(error)) throw error;
    // Retries exhausted or a timeout: the model still gets a result it can act on.
    return {
      result: {
        toolUseId: call.id,
        isError: true,
        content: { text: `<tool_use_error>The tool failed: ${failureMessage(error)}</tool_use_error>` },
        toolName: call.name,
      },
    };
  }
}

function refusedResult(call: PlannedToolUse, answer: ApprovalAnswer): RunToolOutput['result'] {
  const text =
    answer.decision === 'timeout'
      ? 'The tool call was not approved in time, so it was not run. Continue without it or try another approach.'
      : `The user denied this tool call, so it was not run.${'feedback' in answer && answer.feedback ? ` Feedback: ${answer.feedback}` : ''}`;
  return { toolUseId: call.id, isError: true, content: { text: `<tool_use_error>${text}</tool_use_error>` }, toolName: call.name };
}

export function summaryOf(call: PlannedToolUse): string {
  return call.plan.ok ? call.plan.summary : `${call.name} (invalid input)`;
}
