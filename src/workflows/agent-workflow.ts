/**
 * The workflow driver: a thin shell that carries out what loop.ts and context-plan.ts decide.
 *
 * Deterministic by construction: no I/O, no environment, no clock but the workflow's. Everything
 * that touches the world (the model, files, commands) is an activity, imported as a type only.
 * After a worker crash, Temporal replays this function against the recorded history and it
 * resumes exactly where it was: completed activities (a compaction included) are not run again.
 */
import { ApplicationFailure, isCancellation, patched, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import { ErrorType } from '../shared/constants';
import { checkAgentInput } from '../shared/input';
import type {
  AgentResult,
  AgentState,
  CallModelOutcome,
  ContextEdit,
  PlannedToolUse,
  TerminalReason,
  ToolResult,
  TranscriptEntry,
  Transition,
} from '../shared/types';
import {
  callModel,
  COMPACT_OPTIONS,
  compactConversation,
  CONTEXT_OPTIONS,
  MODEL_OPTIONS,
  prepareContext,
  prepareSession,
  SESSION_OPTIONS,
} from './activity-options';
import { afterAutocompact, editThreshold, needsAutocompact, needsContextEdits, reattachBudgetChars } from './context-plan';
import { stateQuery, transcriptQuery } from './definitions';
import { failureMessage } from './failures';
import {
  absorbNewContext,
  absorbToolResults,
  addUsage,
  afterCollapse,
  afterModel,
  beginTurn,
  estimateTokens,
  initialLoopState,
  type LoopState,
  outputLimit,
  recordFileState,
  type Step,
  toResult,
  withoutRecovery,
  withTransition,
} from './loop';
import { runToolUses, summaryOf } from './run-tools';
import { interruptedResult, orderToolResults } from './tool-batches';

/** Transitions after which the context pipeline runs (a recovery retry keeps its request as it is). */
const PIPELINE_BEFORE: readonly (Transition | null)[] = [null, 'next_turn', 'pause_turn_continue'];

export async function agentWorkflow(rawInput: unknown): Promise<AgentResult> {
  const check = checkAgentInput(rawInput);
  if (!check.ok) {
    // A failure (not an exception) fails the workflow at once instead of retrying its task forever.
    throw ApplicationFailure.nonRetryable(check.message, ErrorType.InvalidWorkflowInput);
  }
  const input = check.input;
  const sessionId = workflowInfo().workflowId;
  // Sessions that started before the recovery layers replay without this marker and keep the
  // behaviour they were recorded with (test/fixtures/histories holds such histories).
  const recoveryLayers = patched('recovery-layers');

  const transcript: TranscriptEntry[] = [];
  const view: AgentState = {
    turn: 0,
    model: input.model ?? '',
    status: 'running_model',
    lastTransition: null,
    transitions: [],
    contextEdits: [],
    estimatedContextTokens: 0,
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

  const session = await prepareSession.executeWithOptions({ ...SESSION_OPTIONS, summary: 'prepare session' }, [
    {
      sessionId,
      workdir: input.workdir,
      model: input.model,
      allowedTools: input.allowedTools,
      systemPromptAppend: input.systemPrompt,
      prompt: input.prompt,
      startedAt: new Date(workflowInfo().startTime).toISOString(),
    },
  ]);
  let state = initialLoopState(input, session);
  const overheadTokens = session.overheadTokens;
  view.model = state.model;

  const sync = () => {
    view.turn = state.turnCount;
    view.model = state.model;
    view.usage = state.usage;
    view.lastTransition = state.lastTransition;
    view.estimatedContextTokens = estimateTokens(state);
  };
  const noteTransition = (next: Transition, detail?: string) => {
    state = withTransition(state, next);
    view.transitions.push(next);
    transcript.push({ type: 'transition', turn: state.turnCount, transition: next, ...(detail ? { detail } : {}) });
    sync();
  };
  const noteEdits = (edits: ContextEdit[], estimatedTokens: number) => {
    if (edits.length === 0) return;
    view.contextEdits.push(...edits);
    transcript.push({ type: 'context', turn: state.turnCount, edits, estimatedTokens });
  };
  const finish = (reason: TerminalReason, error?: string): AgentResult => {
    view.status = 'finished';
    view.reason = reason;
    view.currentToolCalls = [];
    sync();
    transcript.push({ type: 'end', turn: state.turnCount, reason, ...(error ? { error } : {}) });
    publishDetails(view);
    return toResult(state, reason, error);
  };

  /** Summarises the conversation; returns whether it worked (failures are the caller's to weigh). */
  const compact = async (reason: 'autocompact' | 'reactive'): Promise<{ ok: true } | { ok: false; error: string }> => {
    view.status = 'compacting';
    publishDetails(view);
    try {
      const compacted = await compactConversation.executeWithOptions(
        { ...COMPACT_OPTIONS, summary: reason === 'reactive' ? 'compact (reactive)' : 'compact (auto)' },
        [
          {
            sessionId,
            workdir: state.workdir,
            model: state.model,
            systemRef: state.systemRef,
            conversationRef: state.conversationRef,
            append: state.pendingMessages,
            recentFiles: state.recentFiles,
            reattachBudgetChars: reattachBudgetChars(state),
            contextWindowTokens: state.contextWindowTokens,
            maxOutputTokens: state.maxOutputTokens,
            reason,
          },
        ],
      );
      state = absorbNewContext(state, compacted.conversationRef, 1, compacted.estimatedTokens);
      state = { ...state, usage: addUsage(state.usage, compacted.usage) };
      noteEdits([reason === 'reactive' ? 'reactive_compact' : 'autocompact'], compacted.estimatedTokens);
      return { ok: true };
    } catch (error) {
      if (isCancellation(error)) throw error;
      return { ok: false, error: failureMessage(error) };
    }
  };

  /** The context pipeline before a new turn's model call: cheap edits, then autocompact. */
  const runContextPipeline = async () => {
    if (needsContextEdits(state)) {
      const edited = await prepareContext.executeWithOptions({ ...CONTEXT_OPTIONS, summary: `turn ${state.turnCount} · context` }, [
        {
          sessionId,
          workdir: state.workdir,
          conversationRef: state.conversationRef,
          append: state.pendingMessages,
          steps: ['snip', 'microcompact'],
          targetTokens: editThreshold(state),
          baseTokens: overheadTokens,
        },
      ]);
      const tokens = edited.applied.length > 0 ? edited.estimatedTokens : estimateTokens(state);
      state = absorbNewContext(state, edited.conversationRef, edited.messageCount, tokens);
      noteEdits(edited.applied, tokens);
    }
    if (needsAutocompact(state)) {
      const result = await compact('autocompact');
      state = afterAutocompact(state, result.ok);
    }
  };

  for (;;) {
    const turn = beginTurn(state);
    if (turn.kind === 'finish') return finish(turn.reason);
    const newTurn = PIPELINE_BEFORE.includes(state.lastTransition);
    state = turn.state;
    sync();
    if (newTurn && recoveryLayers) await runContextPipeline();
    view.status = 'running_model';
    sync();
    publishDetails(view);

    let outcome: CallModelOutcome;
    try {
      outcome = await callModel.executeWithOptions({ ...MODEL_OPTIONS, summary: modelSummary(state) }, [
        {
          sessionId,
          turn: state.turnCount,
          model: state.model,
          maxOutputTokens: outputLimit(state),
          fallbackModel: state.fallbackModel,
          fallbackAfterOverloads: state.fallbackAfterOverloads,
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

    const decision = afterModel(state, outcome);
    state = decision.state;
    sync();
    if (outcome.kind === 'response') {
      transcript.push({ type: 'assistant', turn: state.turnCount, text: outcome.text, stopReason: outcome.stopReason, usage: outcome.usage });
    }

    // Recovery steps may lead to one another (collapse → reactive compact → give up).
    let step: Step = recoveryLayers ? decision.step : withoutRecovery(decision.step, outcome);
    while (step.kind === 'edit_context' || step.kind === 'compact') {
      if (step.kind === 'edit_context') {
        const edit = step.edit;
        const edited = await prepareContext.executeWithOptions({ ...CONTEXT_OPTIONS, summary: edit === 'collapse' ? 'context collapse' : 'strip media' }, [
          {
            sessionId,
            workdir: state.workdir,
            conversationRef: state.conversationRef,
            append: state.pendingMessages,
            steps: [edit],
            targetTokens: 0,
            baseTokens: overheadTokens,
          },
        ]);
        const changed = edited.applied.length > 0;
        if (changed) {
          state = absorbNewContext(state, edited.conversationRef, edited.messageCount, edited.estimatedTokens);
          noteEdits(edited.applied, edited.estimatedTokens);
        }
        const message = outcome.kind === 'response' ? '' : outcome.message;
        if (edit === 'collapse') {
          const next = afterCollapse(state, changed, message);
          state = next.state;
          step = next.step;
        } else {
          step = changed ? { kind: 'call_model', transition: step.transition } : { kind: 'finish', reason: 'image_error', error: message };
        }
      } else {
        const transition = step.transition;
        const result = await compact('reactive');
        const message = outcome.kind === 'response' ? '' : outcome.message;
        step = result.ok ? { kind: 'call_model', transition } : { kind: 'finish', reason: 'prompt_too_long', error: `${message} (reactive compaction failed: ${result.error})` };
      }
    }

    if (step.kind === 'finish') return finish(step.reason, step.error);
    if (step.kind === 'call_model') {
      noteTransition(step.transition, step.transition === 'model_fallback_retry' ? state.model : undefined);
      continue;
    }

    view.status = 'running_tools';
    publishDetails(view);
    const toolUses = step.toolUses;
    for (const call of toolUses) {
      transcript.push({ type: 'tool_call', turn: state.turnCount, toolUseId: call.id, name: call.name, summary: summaryOf(call) });
    }
    const collected = new Map<string, ToolResult>();
    try {
      await runToolUses(() => state, toolUses, view, (call, output) => {
        collected.set(call.id, output.result);
        if (output.fileState) state = recordFileState(state, output.fileState, call.name === 'Read');
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
    view.currentToolCalls = [];
    view.transitions.push('next_turn');
    transcript.push({ type: 'transition', turn: state.turnCount, transition: 'next_turn' });
    sync();
  }
}

function modelSummary(state: LoopState): string {
  const retry = PIPELINE_BEFORE.includes(state.lastTransition) ? '' : ` (${state.lastTransition})`;
  return `turn ${state.turnCount} · model${retry}`;
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

/** Markdown shown as the workflow's current details in the Temporal UI. */
function publishDetails(view: AgentState): void {
  const running =
    view.status === 'finished'
      ? `finished: **${view.reason}**`
      : view.status === 'running_tools'
        ? `running tools: ${view.currentToolCalls.map((call) => call.summary).join(', ')}`
        : view.status === 'compacting'
          ? 'compacting the conversation'
          : 'waiting for the model';
  setCurrentDetails(
    [
      `**Turn ${view.turn}** · ${running}`,
      `- model: ${view.model}`,
      `- last transition: ${view.lastTransition ?? '—'}`,
      `- context: ~${view.estimatedContextTokens} tokens${view.contextEdits.length ? ` (edits: ${view.contextEdits.join(', ')})` : ''}`,
      `- tokens: ${view.usage.inputTokens} in, ${view.usage.outputTokens} out, ${view.usage.cacheReadInputTokens} read from cache`,
    ].join('\n'),
  );
}
