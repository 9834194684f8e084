import { isSessionStatus, SESSION_STATUSES, sessionStatus, statusFilter } from '../../../src/cli/session-status';

describe("a session's status: ExecutionStatus first, then AgentStatus", () => {
  test('a running workflow reads as its AgentStatus, or `running` before it recorded one', () => {
    expect(sessionStatus('RUNNING', 'running_tools')).toBe('running_tools');
    expect(sessionStatus('RUNNING', 'waiting_approval')).toBe('waiting_approval');
    expect(sessionStatus('RUNNING', undefined)).toBe('running');
  });

  test('a closed workflow reads as how it closed, whatever AgentStatus it was left with', () => {
    expect(sessionStatus('TERMINATED', 'running_tools')).toBe('terminated');
    expect(sessionStatus('FAILED', 'running_model')).toBe('failed');
    expect(sessionStatus('TIMED_OUT', 'waiting_input')).toBe('timed_out');
    expect(sessionStatus('CANCELLED', 'running_tools')).toBe('cancelled');
    expect(sessionStatus('CONTINUED_AS_NEW', 'running_model')).toBe('continued_as_new');
    expect(sessionStatus('COMPLETED', 'finished')).toBe('finished');
    expect(sessionStatus('COMPLETED', undefined)).toBe('finished');
  });

  test('`list --status` of a running status matches only running workflows; a closed one its ExecutionStatus', () => {
    expect(statusFilter('running_tools')).toBe("ExecutionStatus='Running' AND AgentStatus='running_tools'");
    expect(statusFilter('running')).toBe("ExecutionStatus='Running'");
    expect(statusFilter('terminated')).toBe("ExecutionStatus='Terminated'");
    expect(statusFilter('cancelled')).toBe("ExecutionStatus='Canceled'");
    expect(statusFilter('timed_out')).toBe("ExecutionStatus='TimedOut'");
    expect(statusFilter('finished')).toBe("ExecutionStatus='Completed'");
  });

  test('every status list takes is one a session can read as, and nothing else gets into a query', () => {
    const expected = ['running_tools', 'waiting_approval', 'waiting_host', 'finished', 'terminated', 'failed'];
    expect(SESSION_STATUSES).toEqual(expect.arrayContaining(expected));
    expect(SESSION_STATUSES.filter((status) => status === 'finished')).toHaveLength(1);
    expect(isSessionStatus('running_tools')).toBe(true);
    expect(isSessionStatus('bogus')).toBe(false);
    expect(isSessionStatus("running_tools' OR WorkflowType='x")).toBe(false);
  });
});
