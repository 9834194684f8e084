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

test('status lists writing sub-agents: working, merged with their conflicts, or not merged and why (issue 27)', () => {
  const view = new SessionView('claude-sonnet-5-5', { pendingApprovals: [], queued: [] }, false, {
    details: () => {},
    searchAttributes: () => {},
  });
  const child = { workflowId: 'p-task-toolu_a', description: 'side A', worktree: '/w/worktree-a' };
  view.showWorktree({ ...child, toolUseId: 'toolu_a', status: 'working' });
  view.showWorktree({ ...child, toolUseId: 'toolu_b', description: 'side B', status: 'working' });
  view.showWorktree({ ...child, toolUseId: 'toolu_a', status: 'conflicts', filesMerged: 2, conflicts: ['x.ts'] });
  const lines = stateDetails('p', view.snapshot());
  expect(lines).toContain('  writing agent toolu_b "side B": working  (worktree /w/worktree-a)');
  expect(lines).toContain(
    '  writing agent toolu_a "side A": merged 2 file(s), conflicts in x.ts  (worktree /w/worktree-a)',
  );
  view.showWorktree({ ...child, toolUseId: 'toolu_b', status: 'not_merged', error: 'it stopped: max_turns' });
  expect(stateDetails('p', view.snapshot())).toContain(
    '  writing agent toolu_b "side A": not merged (it stopped: max_turns)  (worktree /w/worktree-a)',
  );
  view.showWorktree({ ...child, toolUseId: 'toolu_b', status: 'merged', filesMerged: 1, worktreeRemoved: true });
  expect(stateDetails('p', view.snapshot())).toContain(
    '  writing agent toolu_b "side A": merged 1 file(s)  (removed worktree /w/worktree-a)',
  );
});
