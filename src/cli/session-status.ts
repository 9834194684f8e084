/**
 * A session's status as `list` and `status` say it: `AgentStatus` is what the workflow last
 * recorded, so it stays `running_tools` after a `terminate` (the workflow never ran again to
 * change it). Temporal's `ExecutionStatus` decides first: only a running workflow reads as
 * its AgentStatus; a closed one reads as how it closed.
 */
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import { AGENT_STATUSES, type AgentStatus } from '../shared/contract';
import { AGENT_STATUS } from '../shared/search-attributes';

/** How a closed workflow reads, by its execution status, and that status as visibility queries spell it. */
const CLOSED_STATUSES = {
  finished: { execution: 'COMPLETED', query: 'Completed' },
  terminated: { execution: 'TERMINATED', query: 'Terminated' },
  failed: { execution: 'FAILED', query: 'Failed' },
  timed_out: { execution: 'TIMED_OUT', query: 'TimedOut' },
  cancelled: { execution: 'CANCELLED', query: 'Canceled' },
  continued_as_new: { execution: 'CONTINUED_AS_NEW', query: 'ContinuedAsNew' },
} as const satisfies Record<string, { execution: WorkflowExecutionStatusName; query: string }>;

type ClosedStatus = keyof typeof CLOSED_STATUSES;
export type SessionStatus = AgentStatus | ClosedStatus | 'running';

/** Every status `list --status` takes: a running session's (AgentStatus) and a closed one's. */
export const SESSION_STATUSES: readonly SessionStatus[] = [
  'running',
  ...AGENT_STATUSES.filter((status) => status !== 'finished'),
  ...(Object.keys(CLOSED_STATUSES) as ClosedStatus[]),
];

export function isSessionStatus(value: string): value is SessionStatus {
  return (SESSION_STATUSES as readonly string[]).includes(value);
}

function isClosed(status: SessionStatus): status is ClosedStatus {
  return status in CLOSED_STATUSES;
}

/**
 * The status of a session whose workflow is in `execution`: its AgentStatus while it runs
 * (`running` before it recorded one), else how it closed.
 */
export function sessionStatus(execution: WorkflowExecutionStatusName, agentStatus: string | undefined): string {
  if (execution === 'RUNNING') return agentStatus ?? 'running';
  const closed = Object.entries(CLOSED_STATUSES).find(([, status]) => status.execution === execution);
  return closed ? closed[0] : execution.toLowerCase();
}

/** The visibility query filter of `list --status <status>`: a running status never matches a closed session. */
export function statusFilter(status: SessionStatus): string {
  if (status === 'running') return `ExecutionStatus='Running'`;
  if (isClosed(status)) return `ExecutionStatus='${CLOSED_STATUSES[status].query}'`;
  return `ExecutionStatus='Running' AND ${AGENT_STATUS.name}='${status}'`;
}
