/**
 * Each activity's input, built from the loop state (pure). Conversation content travels by
 * reference plus the messages added since, so history per turn does not grow with the context.
 */
import type {
  CallModelInput,
  CompactInput,
  PlannedToolUse,
  PrepareContextInput,
  RunToolInput,
  StopHookInput,
} from '../../shared/activity-io';
import type { StopHook } from '../../shared/hooks';
import { TOOL_RESULT_MAX_CHARS, TOOL_RESULTS_PER_MESSAGE_MAX_CHARS } from '../../shared/limits';
import { reattachBudgetChars, toolResultMaxChars, toolResultsPerMessageMaxChars } from './context-plan';
import { currentInput } from './workdir-moves';
import { fileStatesFor, type LoopState, NEW_TURN, outputLimit } from './loop-state';
import { rulesOf } from './tool-rules';

export function callModelRequest(state: LoopState): CallModelInput {
  const resultsPerMessageMaxChars = toolResultsPerMessageMaxChars(state);
  return {
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
    // Only what differs from the default travels in history.
    ...(resultsPerMessageMaxChars < TOOL_RESULTS_PER_MESSAGE_MAX_CHARS ? { resultsPerMessageMaxChars } : {}),
    ...(state.mcp ? { mcpToolsRef: state.mcp.toolsRef } : {}),
    ...(state.sandbox?.network !== undefined ? { network: state.sandbox.network } : {}),
    ...(state.skillsRef ? { skillsRef: state.skillsRef } : {}),
  };
}

/** The model call's line in the Temporal UI: `turn 3 · model`, or with the recovery it retries for. */
export function modelCallSummary(state: LoopState): string {
  const retry = NEW_TURN.includes(state.lastTransition) ? '' : ` (${state.lastTransition})`;
  return `turn ${state.turnCount} · model${retry}`;
}

export function contextEditRequest(
  state: LoopState,
  steps: PrepareContextInput['steps'],
  targetTokens: number,
  baseTokens: number,
): PrepareContextInput {
  return { conversationRef: state.conversationRef, append: state.pendingMessages, steps, targetTokens, baseTokens };
}

export function compactRequest(state: LoopState, reason: CompactInput['reason']): CompactInput {
  return {
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
    // The summary request declares the same tools as the turns it summarises (their tool_use blocks name them).
    ...(state.mcp ? { mcpToolsRef: state.mcp.toolsRef } : {}),
  };
}

/** `approved`: a person allowed this very call (ask mode), which a guarded change needs. */
export function runToolRequest(
  sessionId: string,
  state: LoopState,
  call: PlannedToolUse,
  approval?: { feedback?: string; approved?: boolean },
): RunToolInput {
  const resultMaxChars = toolResultMaxChars(state);
  return {
    sessionId,
    toolUseId: call.id,
    name: call.name,
    input: currentInput(state, call.input),
    workdir: state.workdir,
    fileStates: fileStatesFor(state, call),
    ...(approval?.feedback ? { approvalFeedback: approval.feedback } : {}),
    ...(resultMaxChars < TOOL_RESULT_MAX_CHARS ? { resultMaxChars } : {}),
    ...(state.sandbox ? { sandbox: state.sandbox } : {}),
    ...(approval?.approved ? { approved: true as const } : {}),
    // Only what reads files needs to know which directories' instruction files were shown.
    ...(rulesOf(call).readsFile && state.instructionDirs?.length ? { instructionDirs: state.instructionDirs } : {}),
    // Only a call that reads the session's MCP servers (its resources) carries their configuration.
    ...(rulesOf(call).readsMcpServers && state.mcp ? { mcpServers: state.mcp.servers } : {}),
    ...(rulesOf(call).loadsSkill && state.skillsRef ? { skillsRef: state.skillsRef } : {}),
  };
}

export function stopHookRequest(sessionId: string, state: LoopState, hooks: StopHook[]): StopHookInput {
  return {
    sessionId,
    workdir: state.workdir,
    hooks,
    ...(state.sandbox ? { sandbox: state.sandbox } : {}),
    finalText: state.finalText,
    stopHookActive: state.stopHookActive,
  };
}
