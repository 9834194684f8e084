/**
 * The loop's state, carried from turn to turn (and from run to run when the session continues as
 * new), and the pure updates the driver applies to it. No Temporal APIs: unit-tested without a
 * server.
 *
 * Recovery budgets are per turn (reset by every normal turn), as in Claude Code: a long task can
 * recover in every one of its turns.
 */
import type { FileState, PlannedToolUse, PrepareSessionOutput } from '../../shared/activity-io';
import { type SandboxRequest, sessionAllowedDomains } from '../../shared/sandbox';
import type { AgentResult, TerminalReason, Transition } from '../../shared/contract';
import {
  type ConversationMessage,
  conversationChars,
  type ToolResult,
  type Usage,
  ZERO_USAGE,
} from '../../shared/conversation';
import type { ResolvedAgentInput } from '../../shared/input';
import type { McpSession } from '../../shared/mcp';
import { AUTOCOMPACT_FLOOR_WINDOW_SHARE, CHARS_PER_TOKEN, LEARNED_WINDOW_OUTPUT_SHARE } from '../../shared/limits';
import { modelLimits } from '../../shared/models';
import { currentPath } from './workdir-moves';

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
  /** The workdirs the session had before its moves to other hosts (see host-loss.ts), oldest first. */
  workdirMoves?: { from: string; to: string }[];
  /** The session's MCP servers, their tool catalog and status (sessions with MCP servers only; see mcp-tools.ts). */
  mcp?: McpSession;
  /** What the session asks of its commands' sandbox (input `sandboxEnv`, `network: false`), when anything. */
  sandbox?: SandboxRequest;
  systemRef: string;
  /** The session's skills, stored (sessions with skills only): model calls offer the Skill tool, its calls load from them. */
  skillsRef?: string;
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
  /** Input `outputFormat`: the valid StructuredOutput call's input, once the model made one. */
  structuredOutput?: unknown;
  /** Input `outputFormat`: failed attempts so far (calls that did not match, turns ended without one), and the last call's error. */
  structuredOutputFailures?: { count: number; lastError?: string };
  budget: BudgetTracker;
  /**
   * The autocompact threshold never falls below this share of the window (flag
   * `learnsContextWindow`): Claude Code's reserves (output and a 13,000-token buffer) are sized for 200K
   * windows and leave nothing, or less than nothing, of a small one.
   */
  autocompactFloorShare?: number;
  /**
   * The window a "prompt is too long: N tokens > M maximum" taught (M), when one did (patch
   * `compaction-fits`): `contextWindowTokens` is then M, and the autocompact reserves scale with it.
   */
  learnedContextWindow?: number;
  /**
   * The estimate after the last pass of the cheap context edits (flag `contextEditsDegradeAndPace`): the
   * next pass waits for the conversation to grow again, so clearing old results does not throw
   * away the prompt cache every turn. Cleared by a compaction.
   */
  contextEditedAt?: number;
  /** Directories below the workdir whose AGENTS.md or CLAUDE.md the model has been shown (in a Read's result). */
  instructionDirs?: string[];
  /** Rate limits waited out so far (patch `rate-limit-wait`; absent until the first). */
  rateLimit?: RateLimitTracker;
}

/** The session's rate limits: time waited and refusals in all, and refusals in a row (for the backoff). */
export interface RateLimitTracker {
  waitedMs: number;
  refusals: number;
  consecutive: number;
}

/** The token budget's continuations so far (see decideTokenBudget). */
export interface BudgetTracker {
  continuations: number;
  /** Output tokens when the last check ran. */
  lastOutputTokens: number;
  /** Output tokens each continuation added, newest last. */
  deltas: number[];
}

export const NEW_BUDGET_TRACKER: BudgetTracker = { continuations: 0, lastOutputTokens: 0, deltas: [] };

export function initialLoopState(
  input: ResolvedAgentInput,
  session: PrepareSessionOutput,
  { autocompactFloor = false } = {},
): LoopState {
  const limits = modelLimits(session.model, { contextWindowTokens: input.contextWindowTokens });
  const prompt: ConversationMessage = { role: 'user', kind: 'text', content: session.prompt };
  return {
    model: session.model,
    fallbackModel: input.fallbackModel,
    fallbackAfterOverloads: input.fallbackAfterOverloads,
    maxTurns: input.maxTurns,
    // More than the model can write in one reply would only fail mid-session: ask for what it can.
    maxOutputTokens: Math.min(input.maxOutputTokens, limits.maxOutputTokens),
    contextWindowTokens: limits.contextWindowTokens,
    modelMaxOutputTokens: limits.maxOutputTokens,
    allowedTools: input.allowedTools,
    workdir: session.workdir,
    ...sandboxRequest(input),
    ...(session.mcp ? { mcp: session.mcp } : {}),
    systemRef: session.systemRef,
    ...(session.skillsRef ? { skillsRef: session.skillsRef } : {}),
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
    ...(autocompactFloor ? { autocompactFloorShare: AUTOCOMPACT_FLOOR_WINDOW_SHARE } : {}),
  };
}

/**
 * The input's wishes for the sandbox, only when it has any (so other sessions' histories do not
 * change). `network` only when it is not the default (`true`, `'filtered'`); `false` stays
 * `false`, as sessions recorded before the modes had it.
 */
export function sandboxRequest(input: ResolvedAgentInput): { sandbox?: SandboxRequest } {
  const env = input.sandboxEnv && Object.keys(input.sandboxEnv).length ? input.sandboxEnv : undefined;
  const network = input.network === true || input.network === 'filtered' ? undefined : input.network;
  const allowedDomains = sessionAllowedDomains(input);
  if (!env && network === undefined && allowedDomains.length === 0) return {};
  return {
    sandbox: {
      ...(env ? { env } : {}),
      ...(network !== undefined ? { network } : {}),
      ...(allowedDomains.length ? { allowedDomains } : {}),
    },
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
  'rewind',
];

/** `max_tokens` for the next call: the escalated limit during an escalation retry. */
export function outputLimit(state: LoopState): number {
  const limit = state.maxOutputTokensOverride ?? state.maxOutputTokens;
  // A learned window (patch compaction-fits) keeps room for the input: the reply takes at most a quarter of it.
  if (state.learnedContextWindow === undefined) return limit;
  return Math.min(limit, Math.floor(state.learnedContextWindow * LEARNED_WINDOW_OUTPUT_SHARE));
}

/** The conversation was replaced by an edited or compacted one. */
export function absorbNewContext(
  state: LoopState,
  conversationRef: string,
  messageCount: number,
  estimatedTokens: number,
): LoopState {
  return { ...state, conversationRef, messageCount, pendingMessages: [], contextTokens: estimatedTokens };
}

/**
 * A tool read or wrote a file: later calls, even in the same response, see its new hash
 * (a Read then an Edit of the same file in one response must work).
 */
export function recordFileState(state: LoopState, fileState: FileState, readByTool: boolean): LoopState {
  const recentFiles = readByTool
    ? [...state.recentFiles.filter((path) => path !== fileState.path), fileState.path].slice(-10)
    : state.recentFiles;
  return { ...state, fileStates: { ...state.fileStates, [fileState.path]: fileState.sha256 }, recentFiles };
}

/**
 * The conversation lost results (a context edit, a compaction, a rewind): the nested instruction
 * files they carried may be gone with them, so the next Read under their directories shows them again.
 */
export function forgetShownInstructions(state: LoopState): LoopState {
  const { instructionDirs: _shown, ...rest } = state;
  return rest;
}

/** A Read's result showed the model these directories' instruction files: later Reads do not repeat them. */
export function recordInstructionDirs(state: LoopState, dirs: readonly string[]): LoopState {
  const known = state.instructionDirs ?? [];
  return { ...state, instructionDirs: [...known, ...dirs.filter((dir) => !known.includes(dir))] };
}

export const PER_TURN_RESET = {
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
export function continueWith(
  state: LoopState,
  text: string,
  next: 'stop_hook_blocking' | 'token_budget_continuation' | 'user_message' | 'structured_output_retry',
): LoopState {
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
  return { ...state, lastTransition: next };
}

/** Characters the pending messages add to the next request. */
export function pendingChars(state: LoopState): number {
  return conversationChars(state.pendingMessages);
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
    ...(state.structuredOutput !== undefined ? { structuredOutput: state.structuredOutput } : {}),
  };
}

/** The file states a tool call needs: only its target's, so history per call stays small. */
export function fileStatesFor(state: LoopState, call: PlannedToolUse): FileState[] {
  // Planned under the workdir of its time: the session may have moved since.
  const path = call.plan.ok && call.plan.filePath !== undefined ? currentPath(state, call.plan.filePath) : undefined;
  const sha256 = path === undefined ? undefined : state.fileStates[path];
  return path !== undefined && sha256 !== undefined ? [{ path, sha256 }] : [];
}
