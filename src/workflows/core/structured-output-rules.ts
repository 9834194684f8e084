/**
 * Pure: input `outputFormat`'s bounded re-asks. A StructuredOutput call that did not match its
 * schema (planned invalid by the model activity) and a turn ended without any call each count as
 * a failed attempt; at STRUCTURED_OUTPUT_MAX_ATTEMPTS the session ends
 * `structured_output_retry_exhausted`, as Claude Code's does. A turn ended without a valid call
 * goes on with Claude Code's reminder.
 */
import type { PlannedToolUse } from '../../shared/activity-io';
import {
  STRUCTURED_OUTPUT_MAX_ATTEMPTS,
  STRUCTURED_OUTPUT_REMINDER,
  structuredOutputExhaustedText,
} from '../../shared/structured-output';
import type { Finish } from './loop';
import { continueWith, type LoopState } from './loop-state';
import { rulesOf } from './tool-rules';

/** The problems of an invalid call, without the tags the model sees around them. */
function problemsOf(errorText: string): string {
  return errorText.replace(/^<tool_use_error>|<\/tool_use_error>$/g, '');
}

function exhausted(count: number, lastError?: string): Finish {
  return {
    kind: 'finish',
    reason: 'structured_output_retry_exhausted',
    error: structuredOutputExhaustedText(count, lastError),
  };
}

/** After a tool turn: its invalid StructuredOutput calls counted; the end when they reach the limit. */
export function afterStructuredOutputCalls(
  state: LoopState,
  calls: readonly PlannedToolUse[],
  max = STRUCTURED_OUTPUT_MAX_ATTEMPTS,
): { state: LoopState; finish?: Finish } {
  const failed = calls.filter((call) => !call.plan.ok && rulesOf(call).sessionControl === 'structured_output');
  if (failed.length === 0) return { state };
  const last = failed[failed.length - 1]!.plan;
  const lastError = last.ok ? undefined : problemsOf(last.errorText);
  const count = (state.structuredOutputFailures?.count ?? 0) + failed.length;
  const next = { ...state, structuredOutputFailures: { count, ...(lastError ? { lastError } : {}) } };
  if (state.structuredOutput === undefined && count >= max) return { state: next, finish: exhausted(count, lastError) };
  return { state: next };
}

/** Whether this tool turn delivered the structured output: the turn ends there (Claude Code's StructuredOutput ends it). */
export function deliveredIn(calls: readonly PlannedToolUse[], state: LoopState): boolean {
  return (
    state.structuredOutput !== undefined &&
    calls.some((call) => call.plan.ok && rulesOf(call).sessionControl === 'structured_output')
  );
}

export type StructuredOutputDecision = { kind: 'allow' } | { kind: 'continue'; state: LoopState } | Finish;

/** The model ended its turn: with the output given, the end goes on as usual; without, the reminder, or the end. */
export function decideStructuredOutput(
  state: LoopState,
  max = STRUCTURED_OUTPUT_MAX_ATTEMPTS,
): StructuredOutputDecision {
  if (state.structuredOutput !== undefined) return { kind: 'allow' };
  const count = (state.structuredOutputFailures?.count ?? 0) + 1;
  const lastError = state.structuredOutputFailures?.lastError;
  if (count >= max) return exhausted(count, lastError);
  const failures = { count, ...(lastError ? { lastError } : {}) };
  return {
    kind: 'continue',
    state: {
      ...continueWith(state, STRUCTURED_OUTPUT_REMINDER, 'structured_output_retry'),
      structuredOutputFailures: failures,
    },
  };
}
