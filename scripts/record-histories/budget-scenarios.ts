/**
 * Issue 26, cost and budgets: a session with `maxBudgetUsd` whose sub-agent spends its share
 * (`patched('max-budget')`): the child ends with `max_budget` after its Bash call is answered,
 * its parent reads that in the Agent call's result and stops with `max_budget` at its next turn
 * boundary. The replies report output tokens that the default model's price makes costly.
 */
import type { FakeReply, RecordedRequest } from '../../test/support/fake-anthropic';
import { turnOf } from '../../test/support/fake-anthropic';
import type { Scenario } from './scenario';

const firstText = (request: RecordedRequest) => JSON.stringify(request.body.messages[0]?.content ?? '');

/** $10 a million output tokens on claude-sonnet-5-5: the parent's first reply costs $0.50, the child's $0.60. */
function budgetStopHandler(request: RecordedRequest): FakeReply {
  if (firstText(request).includes('Spend the budget'))
    return {
      kind: 'message',
      content: [{ type: 'tool_use', id: 'toolu_spend', name: 'Bash', input: { command: 'echo spent' } }],
      stopReason: 'tool_use',
      outputTokens: 60_000,
    };
  if (turnOf(request) === 0)
    return {
      kind: 'message',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_spender',
          name: 'Agent',
          input: { description: 'spender', prompt: 'Spend the budget' },
        },
      ],
      stopReason: 'tool_use',
      outputTokens: 50_000,
    };
  return { kind: 'message', content: [{ type: 'text', text: 'past the budget' }] };
}

export const budgetScenarios: Scenario[] = [
  {
    name: 'budget-stop',
    files: { 'notes/a.txt': 'alpha\n' },
    handler: budgetStopHandler,
    input: { toolSummaries: false, maxBudgetUsd: 1 },
    childToolUseIds: ['toolu_spender'],
  },
];
