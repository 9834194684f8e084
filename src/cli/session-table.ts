/**
 * `durable-agent list` and `status` as a table for people (or JSON with `--json`): id, status,
 * turn, age, host, last transition, tokens and cost of each session. Running sessions answer the
 * `state` query; closed ones are read from their result in history, so no worker is needed; a
 * running session no worker answers for shows what its search attributes recorded.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { AgentResult, AgentState } from '../shared/contract';
import {
  AGENT_COST_USD,
  AGENT_HOST,
  AGENT_LAST_TRANSITION,
  AGENT_STATUS,
  AGENT_TURN,
} from '../shared/search-attributes';
import { formatUsd } from '../shared/model-prices';
import { stateQuery } from '../workflows/definitions';
import { answeredInTime } from './cli-client';
import { failureMessage } from './failure-message';
import { sessionStatus } from './session-status';

export interface SessionRow {
  workflowId: string;
  /** AgentStatus while the workflow runs; once it closed, how: `finished`, `terminated`… (session-status.ts). */
  status: string;
  /** RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, CONTINUED_AS_NEW, TIMED_OUT. */
  workflowStatus: string;
  turn: number | null;
  startedAt: string;
  host: string | null;
  lastTransition: string | null;
  tokens: { input: number; output: number } | null;
  /** What it spent in USD, sub-agents included (`usage.costUsd`, or AgentCostUsd); null: unknown (no priced call). */
  costUsd?: number | null;
  /** A closed session's terminal reason, or the failure's message. */
  reason?: string;
  /** Where the row comes from: a worker answered, the result in history, or only search attributes. */
  source: 'state' | 'result' | 'recorded';
  state?: AgentState;
  result?: AgentResult;
}

/** One session's row: asks its worker when it runs, reads its result when it has ended. */
export async function sessionRow(
  client: Client,
  info: Pick<
    WorkflowExecutionInfo,
    'workflowId' | 'runId' | 'status' | 'startTime' | 'typedSearchAttributes' | 'taskQueue'
  >,
): Promise<SessionRow> {
  const attributes = info.typedSearchAttributes;
  const row: SessionRow = {
    workflowId: info.workflowId,
    status: sessionStatus(info.status.name, attributes.get(AGENT_STATUS)),
    workflowStatus: info.status.name,
    turn: attributes.get(AGENT_TURN) ?? null,
    startedAt: info.startTime.toISOString(),
    host: attributes.get(AGENT_HOST) ?? null,
    lastTransition: attributes.get(AGENT_LAST_TRANSITION) ?? null,
    tokens: null,
    costUsd: attributes.get(AGENT_COST_USD) ?? null,
    source: 'recorded',
  };
  const handle = client.workflow.getHandle(info.workflowId, info.runId);
  if (info.status.name === 'RUNNING') {
    // No worker polls: a query would only wait for its deadline.
    if (!(await hasWorkflowPollers(client, info.taskQueue))) return row;
    const state = await answeredInTime(client, () => handle.query(stateQuery)).catch(() => undefined);
    if (!state) return row;
    return {
      ...row,
      status: state.status,
      turn: state.turn,
      host: state.host ?? row.host,
      lastTransition: state.lastTransition ?? row.lastTransition,
      tokens: { input: state.usage.inputTokens, output: state.usage.outputTokens },
      costUsd: state.usage.costUsd ?? row.costUsd ?? null,
      source: 'state',
      state,
    };
  }
  const result = await (handle.result() as Promise<AgentResult>).catch((error: Error & { cause?: Error }) => error);
  if (result instanceof Error) return { ...row, reason: result.cause ? failureMessage(result.cause) : result.message };
  return {
    ...row,
    turn: result.turnCount,
    reason: result.reason,
    tokens: { input: result.usage.inputTokens, output: result.usage.outputTokens },
    costUsd: result.usage.costUsd ?? null,
    source: 'result',
    result,
  };
}

const POLLER_SEEN_MS = 75_000;

/** Whether any worker polls the queue for workflow tasks (and so can answer a query at once). */
export async function hasWorkflowPollers(client: Client, taskQueue: string): Promise<boolean> {
  const response = await client.workflowService
    .describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    })
    .catch(() => undefined);
  // A worker long-polls for up to about a minute at a time, and its last poll time shows when it began.
  const recent = Date.now() - POLLER_SEEN_MS;
  return (response?.pollers ?? []).some(
    (poller) => !poller.lastAccessTime || optionalTsToMs(poller.lastAccessTime)! >= recent,
  );
}

const COLUMNS = ['ID', 'STATUS', 'TURN', 'AGE', 'HOST', 'LAST TRANSITION', 'TOKENS (IN/OUT)', 'COST'] as const;

export function formatTable(rows: readonly SessionRow[], now = Date.now()): string {
  const cells = rows.map((row) => [
    row.workflowId,
    statusCell(row),
    row.turn === null ? '—' : String(row.turn),
    formatAge(now - Date.parse(row.startedAt)),
    row.host ?? '—',
    row.lastTransition ?? '—',
    row.tokens ? `${formatCount(row.tokens.input)} / ${formatCount(row.tokens.output)}` : '—',
    row.costUsd !== undefined && row.costUsd !== null ? formatUsd(row.costUsd) : '—',
  ]);
  const widths = COLUMNS.map((title, column) => Math.max(title.length, ...cells.map((cell) => cell[column]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((value, column) => value.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(COLUMNS), ...cells.map(line)].join('\n');
}

/** A running session's status; a closed one's end: `finished (completed)`, `terminated`, `failed (…)`. */
function statusCell(row: SessionRow): string {
  if (row.workflowStatus === 'RUNNING' || !row.reason) return row.status;
  return `${row.status} (${row.reason.length > 40 ? `${row.reason.slice(0, 39)}…` : row.reason})`;
}

/** `45 s`, `12 min`, `3 h`, `2 d`. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** `950`, `12.3k`, `4.1M`. */
export function formatCount(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}
