/** The first line of the Temporal UI's current details says what the session is doing, by status. */
import type { AgentState, PendingApproval } from '../../../../src/shared/contract';
import { currentDetails } from '../../../../src/workflows/session/current-details';
import { SessionView } from '../../../../src/workflows/session/session-view';

function state(overrides: Partial<AgentState>): AgentState {
  const people = { pendingApprovals: [] as PendingApproval[], queued: [] as string[] };
  const view = new SessionView('claude-sonnet-5-5', people, false, { details: () => {}, searchAttributes: () => {} });
  return { ...view.snapshot(), turn: 4, ...overrides };
}

const firstLine = (view: AgentState, approvals: PendingApproval[] = []) =>
  currentDetails(view, approvals).split('\n')[0];

test.each([
  [{ status: 'finished', reason: 'max_budget' }, '**Turn 4** · finished: **max_budget**'],
  [
    { status: 'running_tools', currentToolCalls: [{ toolUseId: 't1', name: 'Bash', summary: 'Bash npm test' }] },
    '**Turn 4** · running tools: Bash npm test',
  ],
  [{ status: 'waiting_input' }, '**Turn 4** · waiting for a message (signal `userMessage`, or `end`)'],
  [{ status: 'compacting' }, '**Turn 4** · compacting the conversation'],
  [{ status: 'rewinding' }, '**Turn 4** · rewinding'],
  [{ status: 'running_model' }, '**Turn 4** · waiting for the model'],
  [
    { status: 'waiting_rate_limit', rateLimit: { until: '2026-12-02T18:00:00.000Z', waitedMs: 75_000, refusals: 1 } },
    '**Turn 4** · **waiting out a rate limit** until 2026-12-02T18:00:00.000Z (1 refused, 75 s waited before)',
  ],
] as [Partial<AgentState>, string][])('status %j reads %j', (overrides, line) => {
  expect(firstLine(state(overrides))).toBe(line);
});

test('an approval wait names each call waiting, with its tool_use id', () => {
  const approvals = [{ toolUseId: 'toolu_1', summary: 'Bash rm -rf build' }] as PendingApproval[];
  expect(firstLine(state({ status: 'waiting_approval' }), approvals)).toBe(
    '**Turn 4** · **waiting for approval**: Bash rm -rf build (`toolu_1`)',
  );
});

test('a priced session shows its cost, sub-agents included', () => {
  const view = state({});
  expect(currentDetails({ ...view, usage: { ...view.usage, costUsd: 0.0421 } }, [])).toContain(
    '- cost: $0.0421 (sub-agents included)',
  );
  expect(currentDetails(view, [])).not.toContain('cost');
});
