import { stateDetails } from '../../../src/cli/status-report';
import type { AgentState } from '../../../src/shared/contract';
import { SessionView } from '../../../src/workflows/session/session-view';

function state(overrides: Partial<AgentState>): AgentState {
  const view = new SessionView('claude-sonnet-5-5', { pendingApprovals: [], queued: [] }, false, {
    details: () => {},
    searchAttributes: () => {},
  });
  return { ...view.snapshot(), ...overrides };
}

test('status says a session waits out a rate limit, and until when (issue 26)', () => {
  const waiting = state({
    status: 'waiting_rate_limit',
    rateLimit: { until: '2026-12-02T17:00:00.000Z', waitedMs: 75_400, refusals: 3 },
  });
  expect(stateDetails('wf-1', waiting)).toContain(
    '  rate limited: waiting until 2026-12-02T17:00:00.000Z (3 refused, 75 s waited in all)',
  );
  const after = state({ rateLimit: { until: null, waitedMs: 75_400, refusals: 3 } });
  expect(stateDetails('wf-1', after)).toContain('  rate limits: 3 refused, 75 s waited in all');
  expect(stateDetails('wf-1', state({})).some((line) => line.includes('rate limit'))).toBe(false);
});
