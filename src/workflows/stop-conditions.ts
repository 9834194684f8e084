/**
 * What happens when the model ends a turn without tool calls, and which tool calls need a
 * person's approval: pure functions, in the spirit of the AI SDK's stop conditions.
 */
import {
  STOP_HOOK_CONSECUTIVE_BLOCK_LIMIT,
  TOKEN_BUDGET_COMPLETION_RATIO,
  TOKEN_BUDGET_DIMINISHING_DELTA_TOKENS,
  TOKEN_BUDGET_MIN_CONTINUATIONS_FOR_DIMINISHING,
} from '../shared/limits';
import type { PlannedToolUse, StopHookOutcome } from '../shared/activity-io';
import { rulesOf } from './tool-rules';

export type StopHookDecision =
  | { kind: 'allow' }
  | { kind: 'block'; message: string; consecutiveBlocks: number }
  | { kind: 'prevent'; reason: string }
  | { kind: 'give_up'; reason: string };

/** A block continues the loop with the hook's reason as the next user message, up to a cap. */
export function decideStopHook(outcome: StopHookOutcome, consecutiveBlocks: number, limit = STOP_HOOK_CONSECUTIVE_BLOCK_LIMIT): StopHookDecision {
  if (outcome.kind === 'allow') return { kind: 'allow' };
  if (outcome.kind === 'prevent') return { kind: 'prevent', reason: outcome.reason };
  if (consecutiveBlocks >= limit) {
    return { kind: 'give_up', reason: `A stop hook blocked the end of the session ${consecutiveBlocks} times in a row; the last reason: ${outcome.reason}` };
  }
  return { kind: 'block', message: `Stop hook feedback:\n${outcome.reason}`, consecutiveBlocks: consecutiveBlocks + 1 };
}

export interface BudgetTracker {
  continuations: number;
  /** Output tokens when the last check ran. */
  lastOutputTokens: number;
  /** Output tokens each continuation added, newest last. */
  deltas: number[];
}

export const NEW_BUDGET_TRACKER: BudgetTracker = { continuations: 0, lastOutputTokens: 0, deltas: [] };

export type BudgetDecision = { kind: 'continue'; nudge: string; tracker: BudgetTracker } | { kind: 'stop'; why: 'no_budget' | 'budget_reached' | 'diminishing_returns' };

/**
 * Token budget: below 90% of the budget, nudge the model to keep working — unless after 3 or
 * more continuations the last two each added fewer than 500 output tokens (diminishing returns).
 */
export function decideTokenBudget(budget: number | undefined, outputTokens: number, tracker: BudgetTracker): BudgetDecision {
  if (!budget) return { kind: 'stop', why: 'no_budget' };
  if (outputTokens >= budget * TOKEN_BUDGET_COMPLETION_RATIO) return { kind: 'stop', why: 'budget_reached' };
  const deltas = tracker.continuations > 0 ? [...tracker.deltas, outputTokens - tracker.lastOutputTokens] : tracker.deltas;
  const lastTwo = deltas.slice(-2);
  if (
    tracker.continuations >= TOKEN_BUDGET_MIN_CONTINUATIONS_FOR_DIMINISHING &&
    lastTwo.length === 2 &&
    lastTwo.every((delta) => delta < TOKEN_BUDGET_DIMINISHING_DELTA_TOKENS)
  ) {
    return { kind: 'stop', why: 'diminishing_returns' };
  }
  const percent = Math.round((outputTokens / budget) * 100);
  return {
    kind: 'continue',
    nudge: `${percent}% of the token budget used (${outputTokens} of ${budget} output tokens). Keep working on the task; do not summarise.`,
    tracker: { continuations: tracker.continuations + 1, lastOutputTokens: outputTokens, deltas },
  };
}

/**
 * Allow rules in Claude Code's syntax: `Read` (the whole tool), `Bash(npm test)` (that exact
 * command), `Bash(npm run test:*)` (commands starting with `npm run test`).
 */
export function matchesAllowRule(rule: string, call: PlannedToolUse): boolean {
  const match = rule.match(/^([A-Za-z]+)(?:\((.*)\))?$/);
  if (!match || match[1] !== call.name) return false;
  const pattern = match[2];
  if (pattern === undefined) return true;
  const subject = (rulesOf(call).subject ?? '').trim();
  if (pattern.endsWith(':*')) {
    const prefix = pattern.slice(0, -2);
    return subject === prefix || subject.startsWith(`${prefix} `);
  }
  return subject === pattern;
}

/** In permissionMode "ask", calls of tools that say so (Write, Edit, Bash) wait unless an allow rule matches. */
export function needsApproval(mode: 'auto' | 'ask', allowRules: readonly string[], call: PlannedToolUse): boolean {
  if (mode === 'auto' || !call.plan.ok) return false;
  if (!rulesOf(call).needsApproval) return false;
  return !allowRules.some((rule) => matchesAllowRule(rule, call));
}
