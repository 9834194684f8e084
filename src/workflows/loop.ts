/**
 * The loop's decisions as pure functions over plain data: `next step = f(state, outcome)`.
 * No Temporal APIs here, so unit tests cover every branch without a server, and the workflow
 * driver (agent-workflow.ts) only carries out what these functions decide.
 *
 * Recovery budgets are per turn (reset by every normal turn), as in Claude Code: a long task can
 * recover in every one of its turns.
 */
import {
  CHARS_PER_TOKEN,
  ESCALATED_MAX_OUTPUT_TOKENS,
  MAX_OUTPUT_TOKENS_RECOVERY_LIMIT,
} from '../shared/limits';
import type { ResolvedAgentInput } from '../shared/input';
import { type BudgetTracker, NEW_BUDGET_TRACKER } from './stop-conditions';
import { modelLimits } from '../shared/models';
import type { CallModelOutcome, FileState, PlannedToolUse, PrepareSessionOutput } from '../shared/activity-io';
import type { AgentResult, TerminalReason, Transition } from '../shared/contract';
import { addUsage, type ConversationMessage, type ToolResult, type Usage, ZERO_USAGE } from '../shared/conversation';

export interface LoopState {
  model: string;
  fallbackModel?: string;
  fallbackAfterOverloads: number;
  maxTurns: number;
  maxOutputTokens: number;
  contextWindowTokens: number;
  modelMaxOutputTokens: number;
  allowedTools: string[];
  workdir: string;
  systemRef: string;
  /** Model calls made in normal turns (recovery retries do not count). */
  turnCount: number;
  usage: Usage;
  /** The conversation as last sent to the model or last edited (a node of the stored chain). */
  conversationRef: string | null;
  /** Messages in `conversationRef`. */
  messageCount: number;
  /** Messages to add before the next model call. */
  pendingMessages: ConversationMessage[];
  /** Tokens of the last request (the API's count when known, else an estimate). */
  contextTokens: number;
  /** Content hash of every file the session has read or written, as it last saw it. */
  fileStates: Record<string, string>;
  /** Files read most recently, newest last (re-attached after a compaction). */
  recentFiles: string[];
  lastTransition: Transition | null;
  finalText: string;
  // Per-turn recovery state (reset by every normal turn).
  maxOutputTokensRecoveryCount: number;
  hasAttemptedReactiveCompact: boolean;
  hasAttemptedMediaStrip: boolean;
  maxOutputTokensOverride: number | null;
  // Across turns.
  consecutiveAutocompactFailures: number;
  /** True while the loop goes on because a stop hook blocked the end (told to the hook). */
  stopHookActive: boolean;
  consecutiveStopHookBlocks: number;
  budget: BudgetTracker;
}

export type ModelResponse = Extract<CallModelOutcome, { kind: 'response' }>;

/** What the driver does next. */
export type Step =
  | { kind: 'run_tools'; toolUses: PlannedToolUse[] }
  | { kind: 'call_model'; transition: Transition }
  | { kind: 'edit_context'; edit: 'collapse' | 'media_strip'; transition: Transition }
  | { kind: 'compact'; transition: Transition }
  | { kind: 'finish'; reason: TerminalReason; error?: string };

export interface Decision {
  state: LoopState;
  step: Step;
}

/** Sent after a cut-off reply (Claude Code's wording): continue, do not start over. */
export const RESUME_AFTER_MAX_TOKENS =
  'Output token limit hit. Resume directly — no apology, no recap of what you were doing. ' +
  'Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.';

export function initialLoopState(input: ResolvedAgentInput, session: PrepareSessionOutput): LoopState {
  const limits = modelLimits(session.model, { contextWindowTokens: input.contextWindowTokens });
  const prompt: ConversationMessage = { role: 'user', kind: 'text', content: session.prompt };
  return {
    model: session.model,
    fallbackModel: input.fallbackModel,
    fallbackAfterOverloads: input.fallbackAfterOverloads,
    maxTurns: input.maxTurns,
    maxOutputTokens: input.maxOutputTokens,
    contextWindowTokens: limits.contextWindowTokens,
    modelMaxOutputTokens: limits.maxOutputTokens,
    allowedTools: input.allowedTools,
    workdir: session.workdir,
    systemRef: session.systemRef,
    turnCount: 0,
    usage: ZERO_USAGE,
    conversationRef: null,
    messageCount: 0,
    pendingMessages: [prompt],
    // Histories recorded before overheadTokens existed replay with 0: the first reply sets the real count.
    contextTokens: session.overheadTokens ?? 0,
    fileStates: {},
    recentFiles: [],
    lastTransition: null,
    finalText: '',
    maxOutputTokensRecoveryCount: 0,
    hasAttemptedReactiveCompact: false,
    hasAttemptedMediaStrip: false,
    maxOutputTokensOverride: null,
    consecutiveAutocompactFailures: 0,
    stopHookActive: false,
    consecutiveStopHookBlocks: 0,
    budget: NEW_BUDGET_TRACKER,
  };
}

/** Transitions that start a new turn (the others retry the current one). */
export const NEW_TURN: readonly (Transition | null)[] = [
  null,
  'next_turn',
  'pause_turn_continue',
  'stop_hook_blocking',
  'token_budget_continuation',
  'user_message',
];

/** Before each model call: a new turn is counted (or the turn limit ends the run); a retry is not. */
export function beginTurn(state: LoopState): { kind: 'call_model'; state: LoopState } | { kind: 'finish'; reason: TerminalReason } {
  if (!NEW_TURN.includes(state.lastTransition)) return { kind: 'call_model', state };
  if (state.turnCount >= state.maxTurns) return { kind: 'finish', reason: 'max_turns' };
  return { kind: 'call_model', state: { ...state, turnCount: state.turnCount + 1 } };
}

/** `max_tokens` for the next call: the escalated limit during an escalation retry. */
export function outputLimit(state: LoopState): number {
  return state.maxOutputTokensOverride ?? state.maxOutputTokens;
}

/** The request was sent (and answered or refused): it is now the conversation. */
function sent(state: LoopState, outcome: CallModelOutcome): LoopState {
  const messageCount = outcome.kind === 'response' ? outcome.messageCount : state.messageCount + state.pendingMessages.length;
  return { ...state, conversationRef: outcome.conversationRef, messageCount, pendingMessages: [] };
}

function assistantMessage(response: ModelResponse): ConversationMessage {
  return { role: 'assistant', kind: 'assistant', ref: response.assistant.ref, chars: response.assistant.chars };
}

const transition = (state: LoopState, next: Transition): LoopState => ({ ...state, lastTransition: next });

/** What follows a model call: every recovery layer that answers to the model's outcome. */
export function afterModel(previous: LoopState, outcome: CallModelOutcome): Decision {
  let state = sent(previous, outcome);

  if (outcome.kind === 'prompt_too_long') {
    // Withheld: first archive older turns without a model call (never twice in a row), then one
    // full summary per turn, then give up. Stop hooks never run on this path.
    if (state.lastTransition !== 'collapse_drain_retry' && !state.hasAttemptedReactiveCompact) {
      return { state, step: { kind: 'edit_context', edit: 'collapse', transition: 'collapse_drain_retry' } };
    }
    if (!state.hasAttemptedReactiveCompact) {
      return { state: { ...state, hasAttemptedReactiveCompact: true }, step: { kind: 'compact', transition: 'reactive_compact_retry' } };
    }
    return { state, step: { kind: 'finish', reason: 'prompt_too_long', error: outcome.message } };
  }

  if (outcome.kind === 'media_too_large') {
    if (!state.hasAttemptedMediaStrip) {
      return { state: { ...state, hasAttemptedMediaStrip: true }, step: { kind: 'edit_context', edit: 'media_strip', transition: 'media_strip_retry' } };
    }
    return { state, step: { kind: 'finish', reason: 'image_error', error: outcome.message } };
  }

  if (outcome.kind === 'overloaded') {
    if (state.fallbackModel && state.model !== state.fallbackModel) {
      return { state: { ...state, model: state.fallbackModel }, step: { kind: 'call_model', transition: 'model_fallback_retry' } };
    }
    return { state, step: { kind: 'finish', reason: 'model_error', error: outcome.message } };
  }

  state = {
    ...state,
    usage: addUsage(state.usage, outcome.usage),
    contextTokens: outcome.usage.inputTokens + outcome.usage.cacheCreationInputTokens + outcome.usage.cacheReadInputTokens,
    finalText: outcome.text || state.finalText,
  };

  if (outcome.stopReason === 'max_tokens' || outcome.stopReason === 'model_context_window_exceeded') {
    const escalated = Math.min(ESCALATED_MAX_OUTPUT_TOKENS, state.modelMaxOutputTokens);
    if (state.maxOutputTokensOverride === null && state.maxOutputTokensRecoveryCount === 0 && escalated > state.maxOutputTokens) {
      // Same request again with room to finish; the cut-off reply is withheld, not appended.
      return { state: { ...state, maxOutputTokensOverride: escalated }, step: { kind: 'call_model', transition: 'max_output_tokens_escalate' } };
    }
    if (state.maxOutputTokensRecoveryCount < MAX_OUTPUT_TOKENS_RECOVERY_LIMIT) {
      return {
        state: {
          ...state,
          maxOutputTokensRecoveryCount: state.maxOutputTokensRecoveryCount + 1,
          pendingMessages: [assistantMessage(outcome), { role: 'user', kind: 'text', content: { text: RESUME_AFTER_MAX_TOKENS } }],
        },
        step: { kind: 'call_model', transition: 'max_output_tokens_recovery' },
      };
    }
    return { state, step: { kind: 'finish', reason: 'max_output_tokens' } };
  }

  state = { ...state, pendingMessages: [assistantMessage(outcome)] };
  // Any tool_use block needs a tool_result before the conversation can go on, whatever the
  // stop_reason says (Claude Code follows up on tool_use blocks, not on the stop reason).
  if (outcome.toolUses.length > 0) return { state, step: { kind: 'run_tools', toolUses: outcome.toolUses } };
  switch (outcome.stopReason) {
    case 'pause_turn':
      // The API paused a long turn: sending the content back lets it continue.
      return { state, step: { kind: 'call_model', transition: 'pause_turn_continue' } };
    case 'refusal':
      return { state, step: { kind: 'finish', reason: 'model_error', error: 'The model declined to continue (stop_reason: refusal).' } };
    default:
      // end_turn, stop_sequence, a tool_use stop without blocks, or a reason this code does not know.
      return { state, step: { kind: 'finish', reason: 'completed' } };
  }
}

/**
 * Sessions started before the recovery layers existed (replaying without the `recovery-layers`
 * patch marker) keep the old behaviour: every outcome a layer would now recover from ends the run.
 */
export function withoutRecovery(step: Step, outcome: CallModelOutcome): Step {
  const recovering = step.kind === 'edit_context' || step.kind === 'compact' || (step.kind === 'call_model' && step.transition !== 'pause_turn_continue');
  if (!recovering) return step;
  if (outcome.kind === 'prompt_too_long') return { kind: 'finish', reason: 'prompt_too_long', error: outcome.message };
  if (outcome.kind === 'response') return { kind: 'finish', reason: 'max_output_tokens' };
  return { kind: 'finish', reason: 'model_error', error: outcome.message };
}

/** After a context collapse: retry when it archived something, else go on to the next layer. */
export function afterCollapse(state: LoopState, changed: boolean, message: string): Decision {
  if (changed) return { state, step: { kind: 'call_model', transition: 'collapse_drain_retry' } };
  if (!state.hasAttemptedReactiveCompact) {
    return { state: { ...state, hasAttemptedReactiveCompact: true }, step: { kind: 'compact', transition: 'reactive_compact_retry' } };
  }
  return { state, step: { kind: 'finish', reason: 'prompt_too_long', error: message } };
}

/** The conversation was replaced by an edited or compacted one. */
export function absorbNewContext(state: LoopState, conversationRef: string, messageCount: number, estimatedTokens: number): LoopState {
  return { ...state, conversationRef, messageCount, pendingMessages: [], contextTokens: estimatedTokens };
}

/**
 * A tool read or wrote a file: later calls, even in the same response, see its new hash
 * (a Read then an Edit of the same file in one response must work).
 */
export function recordFileState(state: LoopState, fileState: FileState, readByTool: boolean): LoopState {
  const recentFiles = readByTool ? [...state.recentFiles.filter((path) => path !== fileState.path), fileState.path].slice(-10) : state.recentFiles;
  return { ...state, fileStates: { ...state.fileStates, [fileState.path]: fileState.sha256 }, recentFiles };
}

const PER_TURN_RESET = {
  maxOutputTokensRecoveryCount: 0,
  hasAttemptedReactiveCompact: false,
  hasAttemptedMediaStrip: false,
  maxOutputTokensOverride: null,
} as const;

/** After the tools ran: their results become ONE user message, and a new turn begins. */
export function absorbToolResults(state: LoopState, results: ToolResult[]): LoopState {
  return {
    ...state,
    ...PER_TURN_RESET,
    pendingMessages: [...state.pendingMessages, { role: 'user', kind: 'tool_results', results }],
    lastTransition: 'next_turn',
    // stopHookActive and the block count survive tool turns: the work a hook asked for is still
    // its continuation, and a hook must not keep the agent busy forever by blocking every end.
  };
}

/** The model ended its turn but the loop goes on with a new user message (hook, budget, person). */
export function continueWith(state: LoopState, text: string, next: 'stop_hook_blocking' | 'token_budget_continuation' | 'user_message'): LoopState {
  return {
    ...state,
    ...PER_TURN_RESET,
    pendingMessages: [...state.pendingMessages, { role: 'user', kind: 'text', content: { text } }],
    lastTransition: next,
    // A person's message starts afresh; a hook's block or a budget nudge continues what was going on.
    stopHookActive: next === 'user_message' ? false : next === 'stop_hook_blocking' || state.stopHookActive,
    consecutiveStopHookBlocks: next === 'user_message' ? 0 : state.consecutiveStopHookBlocks,
  };
}

/** Messages people sent during the last turn join the next request (never a turn in flight). */
export function injectMessages(state: LoopState, texts: string[]): LoopState {
  if (texts.length === 0) return state;
  const messages: ConversationMessage[] = texts.map((text) => ({ role: 'user', kind: 'text', content: { text } }));
  return { ...state, pendingMessages: [...state.pendingMessages, ...messages] };
}

export function withTransition(state: LoopState, next: Transition): LoopState {
  return transition(state, next);
}

/** Characters the pending messages add to the next request. */
export function pendingChars(state: LoopState): number {
  let chars = 0;
  for (const message of state.pendingMessages) {
    if (message.kind === 'assistant') chars += message.chars;
    else if (message.kind === 'text') chars += 'text' in message.content ? message.content.text.length : message.content.chars;
    else for (const result of message.results) chars += 'text' in result.content ? result.content.text.length : result.content.chars;
  }
  return chars;
}

/** Claude Code's estimate: the last request's real token count plus ~chars/4 for what was added since. */
export function estimateTokens(state: LoopState): number {
  return state.contextTokens + Math.ceil(pendingChars(state) / CHARS_PER_TOKEN);
}

export function toResult(state: LoopState, reason: TerminalReason, error?: string): AgentResult {
  return {
    reason,
    turnCount: state.turnCount,
    finalText: state.finalText,
    usage: state.usage,
    ...(error ? { error } : {}),
  };
}

/** The file states a tool call needs: only its target's, so history per call stays small. */
export function fileStatesFor(state: LoopState, call: PlannedToolUse): FileState[] {
  const path = call.plan.ok ? call.plan.filePath : undefined;
  const sha256 = path === undefined ? undefined : state.fileStates[path];
  return path !== undefined && sha256 !== undefined ? [{ path, sha256 }] : [];
}
