/**
 * Issue 26, cost and budgets: `maxBudgetUsd` ends a session with sub-agents at `max_budget`, every
 * tool_use answered, a sub-agent that spent its share ending cleanly with its parent told, and the
 * cost (`usage.costUsd`, children included) in the result, the state and `AgentCostUsd`.
 */
import type { AgentResult, AgentState, TranscriptEntry, TranscriptPage } from '../../src/shared/contract';
import { AGENT_COST_USD } from '../../src/shared/search-attributes';
import { type FakeReply, reply, text, toolUse, turnOf, taskOf } from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(180_000);

const harness = fileHarness();

/** A reply that reports `outputTokens` output tokens: $10 a million on the default model (claude-sonnet-5-5). */
const costly = (content: Parameters<typeof reply>[0], outputTokens: number): FakeReply => ({
  kind: 'message',
  content,
  stopReason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
  outputTokens,
});

/** Each tool_call of a transcript has exactly one tool_result. */
function answeredCalls(entries: TranscriptEntry[]): { calls: string[]; results: string[] } {
  const calls = entries.flatMap((entry) => (entry.type === 'tool_call' ? [entry.toolUseId] : []));
  const results = entries.flatMap((entry) => (entry.type === 'tool_result' ? [entry.toolUseId] : []));
  return { calls: calls.sort(), results: results.sort() };
}

test('maxBudgetUsd: a sub-agent stops at its share, its parent is told and stops at max_budget, every tool_use answered', async () => {
  harness.fake.handler = (request): FakeReply => {
    const task = taskOf(request);
    // The spender: $0.60 of output in its first reply, more than the ~$0.50 its parent had left.
    if (task.includes('first part')) return costly([toolUse('Bash', { command: 'echo spent' }, 'toolu_spend')], 60_000);
    if (task.includes('second part')) return costly([text('second done')], 1_000);
    // The parent: two sub-agents at once, for $0.50 of output; it is never asked again.
    if (turnOf(request) === 0)
      return costly(
        [
          toolUse('Agent', { description: 'first', prompt: 'Do the first part' }, 'toolu_first'),
          toolUse('Agent', { description: 'second', prompt: 'Do the second part' }, 'toolu_second'),
        ],
        50_000,
      );
    return reply([text('the parent went on past its budget')]);
  };
  const handle = await harness.start({
    prompt: 'Two parts, on a budget',
    workdir: makeRepo({}),
    toolSummaries: false,
    maxBudgetUsd: 1,
  });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('max_budget');
  expect(result.error).toMatch(
    /^The session spent \$1\.\d{2} of its budget of \$1\.00 \(maxBudgetUsd, sub-agents included\)/,
  );
  expect(harness.fake.requests.filter((request) => taskOf(request).includes('on a budget'))).toHaveLength(1);

  // The spender ended cleanly at its share, its Bash call answered, and made no second call.
  const first = harness.client.workflow.getHandle(`${handle.workflowId}-task-toolu_first`);
  const firstResult = (await first.result()) as AgentResult;
  expect(firstResult).toMatchObject({ reason: 'max_budget', turnCount: 1 });
  // No second turn: every request of the spender is its first (an attempt Temporal retried repeats it, as
  // it happened once in a loaded CI run; what users rely on is that the sub-agent went no further).
  const spender = harness.fake.requests.filter((request) => taskOf(request).includes('first part'));
  expect(spender.length).toBeGreaterThan(0);
  expect(spender.filter((request) => turnOf(request) > 0)).toEqual([]);
  const firstPage = await first.query<TranscriptPage>('transcript');
  expect(answeredCalls(firstPage.entries)).toEqual({ calls: ['toolu_spend'], results: ['toolu_spend'] });
  const second = (await harness.client.workflow
    .getHandle(`${handle.workflowId}-task-toolu_second`)
    .result()) as AgentResult;
  expect(second.reason).toBe('completed');

  // The parent was told in the Agent call's tool_result; both its calls have one.
  const page = await handle.query<TranscriptPage>('transcript');
  expect(answeredCalls(page.entries)).toEqual({
    calls: ['toolu_first', 'toolu_second'],
    results: ['toolu_first', 'toolu_second'],
  });
  const told = page.entries.find((entry) => entry.type === 'tool_result' && entry.toolUseId === 'toolu_first');
  expect(told).toMatchObject({ isError: true });
  expect(told?.type === 'tool_result' && told.preview).toContain('max_budget');
  expect(page.entries.at(-1)).toMatchObject({ type: 'end', reason: 'max_budget' });

  // The cost: the parent's own call and both sub-agents' together, everywhere it is shown.
  const own = page.entries.flatMap((entry) => (entry.type === 'assistant' ? [entry.usage.costUsd ?? 0] : []));
  const total = [...own, firstResult.usage.costUsd!, second.usage.costUsd!].reduce((sum, cost) => sum + cost, 0);
  expect(firstResult.usage.costUsd).toBeGreaterThan(0.6);
  expect(result.usage.costUsd).toBeCloseTo(total, 8);
  expect(result.usage.costUsd).toBeGreaterThan(1.1);
  const state = await handle.query<AgentState>('state');
  expect(state.usage.costUsd).toBe(result.usage.costUsd);
  expect((await handle.describe()).typedSearchAttributes.get(AGENT_COST_USD)).toBe(result.usage.costUsd);
});
