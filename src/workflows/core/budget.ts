/**
 * Input `maxBudgetUsd` (issue 26), pure: when a session stops for its budget, and what its
 * sub-agents may spend. The costs are the activities' (each call priced where the price table
 * is); here they are only compared, so the decisions replay alike.
 *
 * The check is made where a new turn would begin (beginTurn's place, where `max_turns` ends a
 * session): every tool_use of the last reply has its tool_result by then, and the sub-agents of
 * the last turn have ended and been counted. A call's cost is known only once it is made, so a
 * session stops once its spend reaches the budget, having passed it by at most its last turn.
 *
 * A sub-agent's share is what its parent has left when it starts (the budget less what the parent
 * and its finished sub-agents spent). Sub-agents running at once each get that remainder, so a
 * batch of them may together pass the parent's budget (by at most `maxParallelAgents` times the
 * remainder); the parent then stops at its next turn boundary. With nothing left, no sub-agent
 * starts: the call is answered with the reason.
 */
import type { Usage } from '../../shared/conversation';
import { formatUsd, roundUsd } from '../../shared/model-prices';

/** The session's spend so far, in USD (0 when no call had a price). */
export function spentUsd(usage: Usage): number {
  return usage.costUsd ?? 0;
}

/** Why the session stops for its budget, or undefined while it has some left (or none was set). */
export function budgetExhausted(usage: Usage, maxBudgetUsd: number | undefined): string | undefined {
  if (maxBudgetUsd === undefined) return undefined;
  const spent = spentUsd(usage);
  if (spent < maxBudgetUsd) return undefined;
  return `The session spent ${formatUsd(spent)} of its budget of ${formatUsd(maxBudgetUsd)} (maxBudgetUsd, sub-agents included): it stopped before another turn.`;
}

/** What a sub-agent starting now may spend: what its parent has left, or nothing (the call is refused). */
export function subAgentBudget(
  usage: Usage,
  maxBudgetUsd: number | undefined,
): { kind: 'unbounded' } | { kind: 'share'; maxBudgetUsd: number } | { kind: 'spent'; error: string } {
  if (maxBudgetUsd === undefined) return { kind: 'unbounded' };
  const left = roundUsd(maxBudgetUsd - spentUsd(usage));
  if (left > 0) return { kind: 'share', maxBudgetUsd: left };
  return {
    kind: 'spent',
    error: `The session's budget is spent (${formatUsd(spentUsd(usage))} of ${formatUsd(maxBudgetUsd)}, maxBudgetUsd): the sub-agent was not started.`,
  };
}
