/**
 * The workflow driver: a thin shell that carries out what loop.ts, context-plan.ts and
 * stop-conditions.ts decide.
 *
 * Deterministic by construction: no I/O, no environment, no clock but the workflow's. Everything
 * that touches the world (the model, files, commands, hooks) is an activity, imported as a type
 * only. After a worker crash, Temporal replays this function against the recorded history and
 * it resumes exactly where it was: completed activities (a compaction included) are not run again.
 */
import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import { ErrorType } from '../shared/errors';
import { checkAgentInput } from '../shared/input';
import type { CallModelOutcome, PlannedToolUse, PrepareSessionOutput } from '../shared/activity-io';
import type { AgentResult, ContextEdit, TerminalReason, TranscriptEntry, Transition } from '../shared/contract';
import { addUsage, type ToolResult } from '../shared/conversation';
import { rulesOf } from './tool-rules';
import {
  callModel,
  COMPACT_OPTIONS,
  compactConversation,
  CONTEXT_OPTIONS,
  MODEL_OPTIONS,
  prepareContext,
  prepareSession,
  runStopHooks,
  SESSION_OPTIONS,
  STOP_HOOK_OPTIONS,
  summarizeToolBatch,
} from './activity-options';
import { afterAutocompact, editThreshold, needsAutocompact, needsContextEdits, reattachBudgetChars } from './context-plan';
import { failureMessage } from './failures';
import {
  absorbNewContext,
  absorbToolResults,
  afterCollapse,
  afterModel,
  beginTurn,
  continueWith,
  estimateTokens,
  initialLoopState,
  injectMessages,
  type LoopState,
  NEW_TURN,
  outputLimit,
  recordFileState,
  type Step,
  toResult,
  withoutRecovery,
  withTransition,
} from './loop';
import { type Approver, runToolUses, summaryOf } from './run-tools';
import { SessionView } from './session-view';
import { Steering } from './steering';
import { decideStopHook, decideTokenBudget, needsApproval } from './stop-conditions';
import { interruptedResult, orderToolResults } from './tool-batches';

type AfterEnd = { kind: 'continue' } | { kind: 'finish'; reason: TerminalReason; error?: string };

export async function agentWorkflow(rawInput: unknown): Promise<AgentResult> {
  const check = checkAgentInput(rawInput);
  if (!check.ok) {
    // A failure (not an exception) fails the workflow at once instead of retrying its task forever.
    throw ApplicationFailure.nonRetryable(check.message, ErrorType.InvalidWorkflowInput);
  }
  const input = check.input;
  const sessionId = workflowInfo().workflowId;
  // Sessions that started before a feature replay without its marker and keep the behaviour they
  // were recorded with (test/fixtures/histories holds such histories).
  const recoveryLayers = patched('recovery-layers');
  const steeringFeatures = patched('steering');

  const resumed = input.resume as CarriedState | undefined;

  const published: { view?: SessionView } = {};
  const steering = new Steering(() => published.view?.publish());
  const ui = new SessionView(input.model ?? '', steering, steeringFeatures);
  published.view = ui;
  if (resumed) {
    restoreCarried(resumed, steering, ui);
  } else {
    ui.add({ type: 'user', turn: 0, text: input.prompt });
  }

  const session =
    resumed?.session ??
    (await prepareSession.executeWithOptions({ ...SESSION_OPTIONS, summary: 'prepare session' }, [
      {
        workdir: input.workdir,
        model: input.model,
        allowedTools: input.allowedTools,
        systemPromptAppend: input.systemPrompt,
        prompt: input.prompt,
        startedAt: new Date(workflowInfo().startTime).toISOString(),
      },
    ]));
  let state = resumed?.loop ?? initialLoopState(input, session);
  const turnsAtRunStart = state.turnCount;
  const overheadTokens = session.overheadTokens;
  const stopHooks = [...input.stopHooks, ...(session.settingsStopHooks ?? [])];

  const finish = async (reason: TerminalReason, error?: string): Promise<AgentResult> => {
    steering.active = false;
    steering.interruptDone();
    ui.finish(state, reason, error);
    // Let update handlers (an interrupt waiting for its effect) return before the run closes.
    await condition(allHandlersFinished);
    return toResult(state, reason, error);
  };
  const note = (next: Parameters<typeof withTransition>[1], detail?: string) => {
    state = withTransition(state, next);
    ui.transition(state, next, detail);
  };

  /** Summarises the conversation; returns whether it worked (failures are the caller's to weigh). */
  const compact = async (reason: 'autocompact' | 'reactive'): Promise<{ ok: true } | { ok: false; error: string }> => {
    ui.status('compacting', state);
    try {
      const compacted = await compactConversation.executeWithOptions(
        { ...COMPACT_OPTIONS, summary: reason === 'reactive' ? 'compact (reactive)' : 'compact (auto)' },
        [
          {
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
      ui.edits(state, [reason === 'reactive' ? 'reactive_compact' : 'autocompact'], compacted.estimatedTokens);
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
          conversationRef: state.conversationRef,
          append: state.pendingMessages,
          steps: ['snip', 'microcompact'],
          targetTokens: editThreshold(state),
          baseTokens: overheadTokens,
        },
      ]);
      const tokens = edited.applied.length > 0 ? edited.estimatedTokens : estimateTokens(state);
      state = absorbNewContext(state, edited.conversationRef, edited.messageCount, tokens);
      ui.edits(state, edited.applied, tokens);
    }
    if (needsAutocompact(state)) {
      const result = await compact('autocompact');
      state = afterAutocompact(state, result.ok);
    }
  };

  /** Interactive sessions wait (durably, for days if need be) for the next message or `end`. */
  const waitForMessage = async (): Promise<boolean> => {
    ui.status('waiting_input', state);
    await condition(() => steering.queued.length > 0 || steering.ended);
    const texts = steering.takeQueued();
    if (texts.length === 0) return false;
    state = continueWith(state, texts.join('\n\n'), 'user_message');
    ui.transition(state, 'user_message');
    return true;
  };

  /** The model ended its turn without tool calls: stop hooks, token budget, people, or the end. */
  const afterTurnEnd = async (): Promise<AfterEnd> => {
    if (stopHooks.length > 0) {
      let outcome;
      try {
        outcome = await runStopHooks.executeWithOptions({ ...STOP_HOOK_OPTIONS, summary: 'stop hooks' }, [
          { sessionId, workdir: state.workdir, hooks: stopHooks, finalText: state.finalText, stopHookActive: state.stopHookActive },
        ]);
      } catch (error) {
        if (isCancellation(error)) throw error;
        outcome = { kind: 'allow' as const, reports: [`Stop hooks could not run: ${failureMessage(error)}`] };
      }
      for (const report of outcome.reports) ui.add({ type: 'stop_hook', turn: state.turnCount, outcome: 'allow', detail: report });
      const decision = decideStopHook(outcome, state.consecutiveStopHookBlocks);
      if (decision.kind !== 'allow') {
        ui.add({ type: 'stop_hook', turn: state.turnCount, outcome: outcome.kind, detail: 'reason' in outcome ? outcome.reason : '' });
      }
      if (decision.kind === 'prevent') return { kind: 'finish', reason: 'stop_hook_prevented', error: decision.reason };
      if (decision.kind === 'give_up') return { kind: 'finish', reason: 'hook_stopped', error: decision.reason };
      if (decision.kind === 'block') {
        state = { ...continueWith(state, decision.message, 'stop_hook_blocking'), consecutiveStopHookBlocks: decision.consecutiveBlocks };
        ui.transition(state, 'stop_hook_blocking');
        return { kind: 'continue' };
      }
    }
    const budget = decideTokenBudget(input.tokenBudget, state.usage.outputTokens, state.budget);
    if (budget.kind === 'continue') {
      state = { ...continueWith(state, budget.nudge, 'token_budget_continuation'), budget: budget.tracker };
      ui.transition(state, 'token_budget_continuation');
      return { kind: 'continue' };
    }
    const queued = steering.takeQueued();
    if (queued.length > 0) {
      state = continueWith(state, queued.join('\n\n'), 'user_message');
      ui.transition(state, 'user_message');
      return { kind: 'continue' };
    }
    if (input.interactive && (await waitForMessage())) return { kind: 'continue' };
    return { kind: 'finish', reason: 'completed' };
  };

  const approve: Approver = async (call) => {
    if (!needsApproval(input.permissionMode, input.allowRules, call)) return null;
    ui.status('waiting_approval', state);
    const answer = await steering.awaitApproval(call, input.approvalTimeoutMs);
    ui.add({ type: 'approval', turn: state.turnCount, toolUseId: call.id, decision: answer.decision, ...('feedback' in answer && answer.feedback ? { feedback: answer.feedback } : {}) });
    ui.status('running_tools', state);
    return answer;
  };

  /** After an interrupt: an interactive session waits for the next message; others end. */
  const afterInterrupt = async (stopped: 'model' | 'tools'): Promise<AgentResult | undefined> => {
    ui.add({ type: 'interrupt', turn: state.turnCount, stopped });
    steering.interruptDone();
    const reason = stopped === 'model' ? 'aborted_streaming' : 'aborted_tools';
    if (input.interactive && (await waitForMessage())) return undefined;
    return finish(reason, `Interrupted while ${stopped === 'model' ? 'the model was responding' : 'tools were running'}`);
  };

  for (;;) {
    if (NEW_TURN.includes(state.lastTransition)) state = injectMessages(state, steering.takeQueued());
    const turn = beginTurn(state);
    if (turn.kind === 'finish') return finish(turn.reason);
    const newTurn = NEW_TURN.includes(state.lastTransition);
    state = turn.state;
    if (newTurn && recoveryLayers) await runContextPipeline();
    ui.status('running_model', state);

    let outcome: CallModelOutcome;
    try {
      outcome = await steering.interruptible('model', () =>
        callModel.executeWithOptions({ ...MODEL_OPTIONS, summary: modelSummary(state) }, [
          {
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
        ]),
      );
    } catch (error) {
      if (isCancellation(error)) {
        if (steering.takeInterrupt()) {
          const ended = await afterInterrupt('model');
          if (ended) return ended;
          continue;
        }
        return finish('aborted_streaming', 'Cancelled while the model was responding');
      }
      return finish('model_error', failureMessage(error));
    }

    const decision = afterModel(state, outcome);
    state = decision.state;
    if (outcome.kind === 'response') {
      ui.add({ type: 'assistant', turn: state.turnCount, text: outcome.text, stopReason: outcome.stopReason, usage: outcome.usage });
    }

    // Recovery steps may lead to one another (collapse → reactive compact → give up).
    let step: Step = recoveryLayers ? decision.step : withoutRecovery(decision.step, outcome);
    while (step.kind === 'edit_context' || step.kind === 'compact') {
      const message = outcome.kind === 'response' ? '' : outcome.message;
      if (step.kind === 'edit_context') {
        const edit = step.edit;
        const edited = await prepareContext.executeWithOptions({ ...CONTEXT_OPTIONS, summary: edit === 'collapse' ? 'context collapse' : 'strip media' }, [
          { conversationRef: state.conversationRef, append: state.pendingMessages, steps: [edit], targetTokens: 0, baseTokens: overheadTokens },
        ]);
        const changed = edited.applied.length > 0;
        if (changed) {
          state = absorbNewContext(state, edited.conversationRef, edited.messageCount, edited.estimatedTokens);
          ui.edits(state, edited.applied, edited.estimatedTokens);
        }
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
        step = result.ok ? { kind: 'call_model', transition } : { kind: 'finish', reason: 'prompt_too_long', error: `${message} (reactive compaction failed: ${result.error})` };
      }
    }

    if (step.kind === 'finish') {
      if (step.reason !== 'completed' || !steeringFeatures) return finish(step.reason, step.error);
      const next = await afterTurnEnd();
      if (next.kind === 'finish') return finish(next.reason, next.error);
      continue;
    }
    if (step.kind === 'call_model') {
      note(step.transition, step.transition === 'model_fallback_retry' ? state.model : undefined);
      continue;
    }

    const toolUses = step.toolUses;
    ui.state.currentToolCalls = toolUses.map((call) => ({ toolUseId: call.id, name: call.name, summary: summaryOf(call) }));
    ui.status('running_tools', state);
    for (const call of toolUses) ui.add({ type: 'tool_call', turn: state.turnCount, toolUseId: call.id, name: call.name, summary: summaryOf(call) });
    const collected = new Map<string, ToolResult>();
    let interrupted = false;
    try {
      await steering.interruptible('tools', () =>
        runToolUses(
          () => state,
          toolUses,
          ui.state,
          (call, output) => {
            collected.set(call.id, output.result);
            if (output.fileState) state = recordFileState(state, output.fileState, rulesOf(call).readsFile === true);
          },
          approve,
        ),
      );
    } catch (error) {
      if (!isCancellation(error)) throw error;
      interrupted = true;
      // Every tool_use still gets its tool_result, so the transcript stays valid for a continuation.
      for (const call of toolUses) {
        if (!collected.has(call.id)) collected.set(call.id, interruptedResult(call, 'Interrupted by the user: the tool call was stopped before it finished.'));
      }
    }
    const results = orderToolResults(toolUses, collected);
    recordResults(ui.transcript, state.turnCount, toolUses, results);
    state = absorbToolResults(state, results);
    ui.state.currentToolCalls = [];
    if (interrupted) {
      if (!steering.takeInterrupt()) return finish('aborted_tools', 'Cancelled while tools were running');
      const ended = await afterInterrupt('tools');
      if (ended) return ended;
      continue;
    }
    ui.transition(state, 'next_turn');
    if (steeringFeatures && input.toolSummaries) summarizeInBackground(ui, toolUses, results, state.turnCount);

    // Sessions of any length: at a turn boundary, hand the state to a fresh run (same workflow
    // id) before history grows large. Messages queued by then travel with it.
    if (shouldContinueAsNew(input.continueAsNewAfterTurns, state.turnCount - turnsAtRunStart) && patched('continue-as-new')) {
      await condition(allHandlersFinished);
      const { resume: _previous, ...rawFields } = rawInput as Record<string, unknown>;
      return continueAsNew<typeof agentWorkflow>({ ...rawFields, resume: carry(session, state, steering, ui) });
    }
  }
}

/** What one run hands to the next when it continues as new. Plain JSON. */
interface CarriedState {
  [key: string]: unknown;
  session: PrepareSessionOutput;
  loop: LoopState;
  queued: string[];
  transcriptBase: number;
  transitions: Transition[];
  contextEdits: ContextEdit[];
  runs: number;
}

function carry(session: PrepareSessionOutput, loop: LoopState, steering: Steering, ui: SessionView): CarriedState {
  return {
    session,
    loop,
    queued: steering.takeQueued(),
    transcriptBase: ui.transcriptBase + ui.transcript.length,
    // Bounded: the last entries are enough to see the path taken.
    transitions: ui.state.transitions.slice(-200),
    contextEdits: ui.state.contextEdits.slice(-200),
    runs: ui.runs + 1,
  };
}

function restoreCarried(carried: CarriedState, steering: Steering, ui: SessionView): void {
  steering.queued.push(...carried.queued);
  ui.transcriptBase = carried.transcriptBase;
  ui.runs = carried.runs;
  ui.state.transitions.push(...carried.transitions);
  ui.state.contextEdits.push(...carried.contextEdits);
  ui.add({ type: 'transition', turn: carried.loop.turnCount, transition: 'continued_as_new', detail: `run ${carried.runs + 1}` });
}

/** Temporal suggests it (history nearing its limits), or the input's turn count per run is reached. */
function shouldContinueAsNew(afterTurns: number | undefined, turnsThisRun: number): boolean {
  return workflowInfo().continueAsNewSuggested || (afterTurns !== undefined && turnsThisRun >= afterTurns);
}

/** Fire and forget: the loop does not wait for the small model's account of a tool batch. */
function summarizeInBackground(ui: SessionView, toolUses: PlannedToolUse[], results: ToolResult[], turn: number): void {
  const calls = toolUses.map((call, index) => {
    const content = results[index]!.content;
    return { name: call.name, summary: summaryOf(call), isError: results[index]!.isError, preview: 'text' in content ? content.text.slice(0, 300) : content.preview };
  });
  summarizeToolBatch
    .executeWithOptions({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 2 }, summary: `turn ${turn} · tool summary` }, [{ calls }])
    .then((text) => {
      if (!text) return;
      ui.state.lastToolSummary = text;
      ui.add({ type: 'tool_summary', turn, text });
      ui.publish();
    })
    .catch(() => {
      // A missing summary costs nothing but the summary.
    });
}

function modelSummary(state: LoopState): string {
  const retry = NEW_TURN.includes(state.lastTransition) ? '' : ` (${state.lastTransition})`;
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
