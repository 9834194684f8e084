/**
 * The loop's decisions as pure functions over plain data: `next step = f(state, outcome)`.
 * No Temporal APIs here, so unit tests cover every branch without a server, and the workflow
 * driver (agent-workflow.ts) only carries out what these functions decide.
 */
import type { ResolvedAgentInput } from '../shared/input';
import type {
  AgentResult,
  CallModelOutcome,
  ConversationMessage,
  FileState,
  PlannedToolUse,
  PrepareSessionOutput,
  TerminalReason,
  ToolResult,
  Transition,
  Usage,
} from '../shared/types';

export interface LoopState {
  model: string;
  maxTurns: number;
  maxOutputTokens: number;
  allowedTools: string[];
  workdir: string;
  systemRef: string;
  /** Model calls made in normal turns. */
  turnCount: number;
  usage: Usage;
  /** The conversation as last sent to the model (a node of the stored chain). */
  conversationRef: string | null;
  /** Messages to add before the next model call. */
  pendingMessages: ConversationMessage[];
  /** Content hash of every file the session has read or written, as it last saw it. */
  fileStates: Record<string, string>;
  lastTransition: Transition | null;
  finalText: string;
}

export type ModelResponse = Extract<CallModelOutcome, { kind: 'response' }>;

export type Decision =
  | { kind: 'run_tools'; toolUses: PlannedToolUse[] }
  | { kind: 'continue'; transition: Transition }
  | { kind: 'finish'; reason: TerminalReason; error?: string };

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

export function initialLoopState(input: ResolvedAgentInput, session: PrepareSessionOutput): LoopState {
  return {
    model: session.model,
    maxTurns: input.maxTurns,
    maxOutputTokens: input.maxOutputTokens,
    allowedTools: input.allowedTools,
    workdir: session.workdir,
    systemRef: session.systemRef,
    turnCount: 0,
    usage: ZERO_USAGE,
    conversationRef: null,
    pendingMessages: [{ role: 'user', kind: 'text', content: session.prompt }],
    fileStates: {},
    lastTransition: null,
    finalText: '',
  };
}

/** Before each model call: the turn about to start, or the end when the turn limit is reached. */
export function beginTurn(state: LoopState): { kind: 'call_model'; state: LoopState } | { kind: 'finish'; reason: TerminalReason } {
  if (state.turnCount >= state.maxTurns) return { kind: 'finish', reason: 'max_turns' };
  return { kind: 'call_model', state: { ...state, turnCount: state.turnCount + 1 } };
}

export function addUsage(total: Usage, added: Usage): Usage {
  return {
    inputTokens: total.inputTokens + added.inputTokens,
    outputTokens: total.outputTokens + added.outputTokens,
    cacheCreationInputTokens: total.cacheCreationInputTokens + added.cacheCreationInputTokens,
    cacheReadInputTokens: total.cacheReadInputTokens + added.cacheReadInputTokens,
  };
}

/**
 * Folds a model response into the state: the request is now the conversation, the reply is the
 * next message to send, usage and final text are updated.
 */
export function absorbResponse(state: LoopState, response: ModelResponse): LoopState {
  return {
    ...state,
    usage: addUsage(state.usage, response.usage),
    conversationRef: response.conversationRef,
    pendingMessages: [{ role: 'assistant', kind: 'assistant', ref: response.assistant.ref, chars: response.assistant.chars }],
    finalText: response.text || state.finalText,
  };
}

/** What follows a model call, from its outcome alone. */
export function decideAfterModel(outcome: CallModelOutcome): Decision {
  if (outcome.kind === 'prompt_too_long') {
    return { kind: 'finish', reason: 'prompt_too_long', error: outcome.message };
  }
  // Any tool_use block needs a tool_result before the conversation can go on, whatever the
  // stop_reason says (Claude Code follows up on tool_use blocks, not on the stop reason).
  if (outcome.toolUses.length > 0) return { kind: 'run_tools', toolUses: outcome.toolUses };
  switch (outcome.stopReason) {
    case 'pause_turn':
      // The API paused a long turn: sending the content back lets it continue.
      return { kind: 'continue', transition: 'pause_turn_continue' };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { kind: 'finish', reason: 'max_output_tokens' };
    case 'refusal':
      return { kind: 'finish', reason: 'model_error', error: 'The model declined to continue (stop_reason: refusal).' };
    default:
      // end_turn, stop_sequence, a tool_use stop without blocks, or a reason this code does not know.
      return { kind: 'finish', reason: 'completed' };
  }
}

/**
 * A tool read or wrote a file: later calls, even in the same response, see its new hash
 * (a Read then an Edit of the same file in one response must work).
 */
export function recordFileState(state: LoopState, fileState: FileState): LoopState {
  return { ...state, fileStates: { ...state.fileStates, [fileState.path]: fileState.sha256 } };
}

/** After the tools ran: their results become ONE user message, and the loop goes on. */
export function absorbToolResults(state: LoopState, results: ToolResult[]): LoopState {
  return {
    ...state,
    pendingMessages: [...state.pendingMessages, { role: 'user', kind: 'tool_results', results }],
    lastTransition: 'next_turn',
  };
}

export function absorbContinuation(state: LoopState, transition: Transition): LoopState {
  return { ...state, lastTransition: transition };
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
