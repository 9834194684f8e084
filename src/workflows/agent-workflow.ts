/**
 * The workflow driver: a thin shell that carries out what loop.ts decides.
 *
 * Deterministic by construction: no I/O, no environment, no clock but the workflow's. Everything
 * that touches the world (the model, files, commands) is an activity, imported as a type only.
 * After a worker crash, Temporal replays this function against the recorded history and it
 * resumes exactly where it was: completed activities are not run again.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  type ActivityOptions,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import {
  ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  BASH_DEFAULT_TIMEOUT_MS,
  ErrorType,
  MAX_PARALLEL_TOOL_CALLS,
  NON_RETRYABLE_MODEL_ERRORS,
} from '../shared/constants';
import { checkAgentInput } from '../shared/input';
import type {
  AgentResult,
  AgentState,
  CallModelOutcome,
  PlannedToolUse,
  RunToolOutput,
  TerminalReason,
  ToolResult,
  TranscriptEntry,
} from '../shared/types';
import { stateQuery, transcriptQuery } from './definitions';
import {
  absorbContinuation,
  absorbResponse,
  absorbToolResults,
  beginTurn,
  decideAfterModel,
  fileStatesFor,
  initialLoopState,
  recordFileState,
  type LoopState,
  toResult,
} from './loop';
import { cancelsSiblings, interruptedResult, orderToolResults, partitionToolUses, siblingCancelledResult } from './tool-batches';

const SESSION_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: [ErrorType.InvalidWorkdir, ErrorType.MissingApiKey] },
};

const MODEL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [...NON_RETRYABLE_MODEL_ERRORS, ErrorType.ContentMissing],
  },
};

const TOOL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { initialInterval: '1 second', maximumAttempts: 5, nonRetryableErrorTypes: [ErrorType.ContentMissing] },
};

const { prepareSession } = proxyActivities<AgentActivities>(SESSION_OPTIONS);
const { callModel } = proxyActivities<AgentActivities>(MODEL_OPTIONS);
const { runTool } = proxyActivities<AgentActivities>(TOOL_OPTIONS);

export async function agentWorkflow(rawInput: unknown): Promise<AgentResult> {
  const check = checkAgentInput(rawInput);
  if (!check.ok) {
    // A failure (not an exception) fails the workflow at once instead of retrying its task forever.
    throw ApplicationFailure.nonRetryable(check.message, ErrorType.InvalidWorkflowInput);
  }
  const input = check.input;
  const sessionId = workflowInfo().workflowId;

  const transcript: TranscriptEntry[] = [];
  const view: AgentState = {
    turn: 0,
    model: input.model ?? '',
    status: 'running_model',
    lastTransition: null,
    usage: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    currentToolCalls: [],
    reason: null,
  };
  setHandler(stateQuery, () => view);
  setHandler(transcriptQuery, (request = {}) => {
    const fromIndex = Math.max(0, request.fromIndex ?? 0);
    const entries = transcript.slice(fromIndex, fromIndex + Math.max(1, request.limit ?? 200));
    return { entries, nextIndex: fromIndex + entries.length, total: transcript.length };
  });
  transcript.push({ type: 'user', turn: 0, text: input.prompt });

  const session = await prepareSession.executeWithOptions({ ...SESSION_OPTIONS, summary: 'prepare session' }, [{
    sessionId,
    workdir: input.workdir,
    model: input.model,
    allowedTools: input.allowedTools,
    systemPromptAppend: input.systemPrompt,
    prompt: input.prompt,
    startedAt: new Date(workflowInfo().startTime).toISOString(),
  }]);
  let state = initialLoopState(input, session);
  view.model = state.model;

  const finish = (reason: TerminalReason, error?: string): AgentResult => {
    view.status = 'finished';
    view.reason = reason;
    view.currentToolCalls = [];
    transcript.push({ type: 'end', turn: state.turnCount, reason, ...(error ? { error } : {}) });
    publishDetails(state, view, reason);
    return toResult(state, reason, error);
  };

  for (;;) {
    const turn = beginTurn(state);
    if (turn.kind === 'finish') return finish(turn.reason);
    state = turn.state;
    view.turn = state.turnCount;
    view.status = 'running_model';
    publishDetails(state, view);

    let outcome: CallModelOutcome;
    try {
      outcome = await callModel.executeWithOptions({ ...MODEL_OPTIONS, summary: `turn ${state.turnCount} · model` }, [
        {
          sessionId,
          turn: state.turnCount,
          model: state.model,
          maxOutputTokens: state.maxOutputTokens,
          systemRef: state.systemRef,
          allowedTools: state.allowedTools,
          workdir: state.workdir,
          conversationRef: state.conversationRef,
          append: state.pendingMessages,
        },
      ]);
    } catch (error) {
      if (isCancellation(error)) return finish('aborted_streaming', 'Cancelled while the model was responding');
      return finish('model_error', failureMessage(error));
    }

    const decision = decideAfterModel(outcome);
    if (outcome.kind === 'response') {
      state = absorbResponse(state, outcome);
      view.usage = state.usage;
      transcript.push({ type: 'assistant', turn: state.turnCount, text: outcome.text, stopReason: outcome.stopReason, usage: outcome.usage });
    }
    if (decision.kind === 'finish') return finish(decision.reason, decision.error);
    if (decision.kind === 'continue') {
      state = absorbContinuation(state, decision.transition);
      view.lastTransition = decision.transition;
      transcript.push({ type: 'transition', turn: state.turnCount, transition: decision.transition });
      continue;
    }

    view.status = 'running_tools';
    const toolUses = decision.toolUses;
    for (const call of toolUses) {
      transcript.push({ type: 'tool_call', turn: state.turnCount, toolUseId: call.id, name: call.name, summary: summaryOf(call) });
    }
    const collected = new Map<string, ToolResult>();
    try {
      await runToolUses(() => state, toolUses, view, (call, output) => {
        collected.set(call.id, output.result);
        if (output.fileState) state = recordFileState(state, output.fileState);
      });
    } catch (error) {
      if (!isCancellation(error)) throw error;
      // Every tool_use still gets its tool_result, so the transcript stays valid for a continuation.
      for (const call of toolUses) {
        if (!collected.has(call.id)) collected.set(call.id, interruptedResult(call, 'Interrupted: the tool call was cancelled before it finished.'));
      }
      recordResults(transcript, state.turnCount, toolUses, orderToolResults(toolUses, collected));
      return finish('aborted_tools', 'Cancelled while tools were running');
    }
    const results = orderToolResults(toolUses, collected);
    recordResults(transcript, state.turnCount, toolUses, results);
    state = absorbToolResults(state, results);
    view.lastTransition = state.lastTransition;
    view.currentToolCalls = [];
    transcript.push({ type: 'transition', turn: state.turnCount, transition: 'next_turn' });
  }
}

/**
 * Runs the calls batch by batch: concurrency-safe batches as parallel activities, other calls
 * alone and in order. After a failing Bash call the remaining calls are cancelled, not run.
 */
async function runToolUses(
  currentState: () => LoopState,
  toolUses: PlannedToolUse[],
  view: AgentState,
  onResult: (call: PlannedToolUse, output: RunToolOutput) => void,
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
        const output = await runOneTool(currentState(), call);
        onResult(call, output);
        if (!failedBash && cancelsSiblings(call, output.result)) failedBash = call;
      }),
    );
  }
}

async function runOneTool(state: LoopState, call: PlannedToolUse): Promise<RunToolOutput> {
  if (!call.plan.ok) return { result: { toolUseId: call.id, isError: true, content: { text: call.plan.errorText } } };
  const bashTimeout = call.name === 'Bash' ? ((call.input as { timeout?: number }).timeout ?? BASH_DEFAULT_TIMEOUT_MS) : 0;
  try {
    return await runTool.executeWithOptions(
      {
        ...TOOL_OPTIONS,
        summary: call.plan.summary,
        // A command may run for its whole timeout; the activity must outlive it.
        ...(bashTimeout ? { startToCloseTimeout: bashTimeout + 60_000 } : {}),
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
      result: { toolUseId: call.id, isError: true, content: { text: `<tool_use_error>The tool failed: ${failureMessage(error)}</tool_use_error>` } },
    };
  }
}

function recordResults(transcript: TranscriptEntry[], turn: number, toolUses: PlannedToolUse[], results: ToolResult[]): void {
  results.forEach((result, index) => {
    const content = result.content;
    transcript.push({
      type: 'tool_result',
      turn,
      toolUseId: result.toolUseId,
      name: toolUses[index]?.name ?? '',
      isError: result.isError,
      preview: 'text' in content ? content.text.slice(0, 300) : content.preview,
    });
  });
}

function summaryOf(call: PlannedToolUse): string {
  return call.plan.ok ? call.plan.summary : `${call.name} (invalid input)`;
}

/** The message people need: the API's own words for a model failure, not the wrapper's. */
function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure) {
    const cause = error.cause;
    if (cause instanceof TimeoutFailure) return `Activity timed out (${cause.timeoutType})`;
    if (cause instanceof ApplicationFailure) return cause.message;
    if (cause) return cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Markdown shown as the workflow's current details in the Temporal UI. */
function publishDetails(state: LoopState, view: AgentState, reason?: TerminalReason): void {
  const running = reason
    ? `finished: **${reason}**`
    : view.status === 'running_tools'
      ? `running tools: ${view.currentToolCalls.map((call) => call.summary).join(', ')}`
      : 'waiting for the model';
  setCurrentDetails(
    [
      `**Turn ${state.turnCount}** · ${running}`,
      `- model: ${state.model}`,
      `- last transition: ${state.lastTransition ?? '—'}`,
      `- tokens: ${state.usage.inputTokens} in, ${state.usage.outputTokens} out, ${state.usage.cacheReadInputTokens} read from cache`,
    ].join('\n'),
  );
}
