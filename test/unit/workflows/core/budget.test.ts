/** Input maxBudgetUsd: when a session stops, and what its sub-agents may spend. */
import { budgetExhausted, subAgentBudget } from '../../../../src/workflows/core/budget';
import { ZERO_USAGE } from '../../../../src/shared/conversation';

const spent = (costUsd?: number) => ({ ...ZERO_USAGE, ...(costUsd === undefined ? {} : { costUsd }) });

test('a session stops once its spend reaches its budget, saying what it spent of what', () => {
  expect(budgetExhausted(spent(5), undefined)).toBeUndefined();
  expect(budgetExhausted(spent(), 1)).toBeUndefined();
  expect(budgetExhausted(spent(0.99), 1)).toBeUndefined();
  expect(budgetExhausted(spent(1), 1)).toMatch(
    /spent \$1\.00 of its budget of \$1\.00 \(maxBudgetUsd, sub-agents included\)/,
  );
  expect(budgetExhausted(spent(0.0312), 0.025)).toMatch(/spent \$0\.0312 of its budget of \$0\.0250/);
});

test('a sub-agent gets what its parent has left; nothing left: it is not started', () => {
  expect(subAgentBudget(spent(3), undefined)).toEqual({ kind: 'unbounded' });
  expect(subAgentBudget(spent(), 0.5)).toEqual({ kind: 'share', maxBudgetUsd: 0.5 });
  expect(subAgentBudget(spent(0.3), 1)).toEqual({ kind: 'share', maxBudgetUsd: 0.7 });
  const none = subAgentBudget(spent(1.2), 1);
  expect(none.kind).toBe('spent');
  expect(none.kind === 'spent' && none.error).toMatch(
    /budget is spent \(\$1\.20 of \$1\.00, maxBudgetUsd\): the sub-agent was not started/,
  );
});
