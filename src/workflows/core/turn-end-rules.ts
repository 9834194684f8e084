/**
 * What happens when the model ends a turn without tool calls (stop hooks, token budget, people
 * waiting, the end): pure functions, in the spirit of the AI SDK's stop conditions. Which tool
 * calls need a person's approval is in approval-rules.ts.
 */
import type { StopHookOutcome } from '../../shared/activity-io';
import {
  STOP_HOOK_CONSECUTIVE_BLOCK_LIMIT,
  TOKEN_BUDGET_COMPLETION_RATIO,
  TOKEN_BUDGET_DIMINISHING_DELTA_TOKENS,
  TOKEN_BUDGET_MIN_CONTINUATIONS_FOR_DIMINISHING,
} from '../../shared/limits';
import type { Finish } from './loop';
import { type BudgetTracker, continueWith, type LoopState } from './loop-state';
import { decideStructuredOutput } from './structured-output-rules';

export type StopHookDecision =
  | { kind: 'allow' }
  | { kind: 'block'; message: string; consecutiveBlocks: number }
  | { kind: 'prevent'; reason: string }
  | { kind: 'give_up'; reason: string };

/** A block continues the loop with the hook's reason as the next user message, up to a cap. */
export function decideStopHook(
  outcome: StopHookOutcome,
  consecutiveBlocks: number,
  limit = STOP_HOOK_CONSECUTIVE_BLOCK_LIMIT,
): StopHookDecision {
  if (outcome.kind === 'allow') return { kind: 'allow' };
  if (outcome.kind === 'prevent') return { kind: 'prevent', reason: outcome.reason };
  if (consecutiveBlocks >= limit) {
    return {
      kind: 'give_up',
      reason: `A stop hook blocked the end of the session ${consecutiveBlocks} times in a row; the last reason: ${outcome.reason}`,
    };
  }
  return { kind: 'block', message: `Stop hook feedback:\n${outcome.reason}`, consecutiveBlocks: consecutiveBlocks + 1 };
}

export type BudgetDecision =
  | { kind: 'continue'; nudge: string; tracker: BudgetTracker }
  | { kind: 'stop'; why: 'no_budget' | 'budget_reached' | 'diminishing_returns' };

/**
 * Token budget: below 90% of the budget, nudge the model to keep working — unless after 3 or
 * more continuations the last two each added fewer than 500 output tokens (diminishing returns).
 */
export function decideTokenBudget(
  budget: number | undefined,
  outputTokens: number,
  tracker: BudgetTracker,
): BudgetDecision {
  if (!budget) return { kind: 'stop', why: 'no_budget' };
  if (outputTokens >= budget * TOKEN_BUDGET_COMPLETION_RATIO) return { kind: 'stop', why: 'budget_reached' };
  const deltas =
    tracker.continuations > 0 ? [...tracker.deltas, outputTokens - tracker.lastOutputTokens] : tracker.deltas;
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

export type TurnEnd =
  /** The loop goes on with `state` (its lastTransition says why); `takesQueued`: the queued messages are in it. */
  { kind: 'continue'; state: LoopState; takesQueued?: true } | { kind: 'wait_for_message' } | Finish;

/**
 * The model ended its turn without tool calls. In Claude Code's order: the stop hooks' verdict,
 * then the token budget, then the messages people queued meanwhile, then (interactive sessions)
 * waiting for the next one; else the task is complete.
 */
export function decideTurnEnd(
  state: LoopState,
  facts: {
    hook: StopHookDecision;
    tokenBudget: number | undefined;
    queued: readonly string[];
    interactive: boolean;
    /**
     * The reference design's rule (flag `stopHookBlockKeepsCompactBudget`): a block continues the turn that
     * already compacted reactively, so a prompt that is still too long ends the run instead of
     * compacting again and again (hook, compaction, hook…).
     */
    hookBlockKeepsReactiveCompact?: boolean;
    /** Sessions since `stop-hook-limit` end a stop hook's endless blocking with its own reason (before: `hook_stopped`). */
    stopHookLimit?: boolean;
    /** Input `outputFormat`: the session ends only once the model gave its structured output (core/structured-output-rules.ts). */
    structuredOutput?: boolean;
  },
): TurnEnd {
  const { hook } = facts;
  if (hook.kind === 'prevent') return { kind: 'finish', reason: 'stop_hook_prevented', error: hook.reason };
  if (hook.kind === 'give_up')
    return { kind: 'finish', reason: facts.stopHookLimit ? 'stop_hook_limit' : 'hook_stopped', error: hook.reason };
  if (hook.kind === 'block') {
    const continued = continueWith(state, hook.message, 'stop_hook_blocking');
    const hasAttemptedReactiveCompact = facts.hookBlockKeepsReactiveCompact
      ? state.hasAttemptedReactiveCompact
      : continued.hasAttemptedReactiveCompact;
    return {
      kind: 'continue',
      state: { ...continued, consecutiveStopHookBlocks: hook.consecutiveBlocks, hasAttemptedReactiveCompact },
    };
  }
  if (facts.structuredOutput) {
    const structured = decideStructuredOutput(state);
    if (structured.kind !== 'allow') return structured;
  }
  const budget = decideTokenBudget(facts.tokenBudget, state.usage.outputTokens, state.budget);
  if (budget.kind === 'continue') {
    return {
      kind: 'continue',
      state: { ...continueWith(state, budget.nudge, 'token_budget_continuation'), budget: budget.tracker },
    };
  }
  if (facts.queued.length > 0)
    return {
      kind: 'continue',
      state: continueWith(state, facts.queued.join('\n\n'), 'user_message'),
      takesQueued: true,
    };
  if (facts.interactive) return { kind: 'wait_for_message' };
  return { kind: 'finish', reason: 'completed' };
}
