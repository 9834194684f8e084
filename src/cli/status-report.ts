/**
 * What `durable-agent status <id>` and `durable-agent list` print: a table for people, JSON with `--json`.
 * Neither needs a worker: a closed session is read from its result, a running one no worker
 * answers for from its search attributes, with a line naming the situation.
 */
import type { WorktreeChildView } from '../shared/worktrees';
import type { Client } from '@temporalio/client';
import type { AgentState, RateLimitView } from '../shared/contract';
import { WORKFLOW_TYPE } from '../shared/contract';
import { todoLines, todoProgress } from '../shared/todos';
import { AGENT_FORKED_FROM } from '../shared/search-attributes';
import type { Store } from '../store/open-store';
import { temporalSettings } from '../temporal/temporal-connection';
import { QUERY_DEADLINE_MS } from './cli-client';
import { formatResult } from './print-transcript';
import { formatPendingCall, pendingCalls } from './pending-calls';
import { type SessionStatus, statusFilter } from './session-status';
import { formatTable, type SessionRow, sessionRow } from './session-table';
import { storedSession } from './stored-session';

/** What a running session is doing beyond the table: calls, approvals, queued messages, snapshots. */
export function stateDetails(workflowId: string, state: AgentState): string[] {
  const lines = [`  model ${state.model} · context ~${state.estimatedContextTokens} tokens`];
  if (state.status === 'waiting_host') {
    lines.push(
      `  host ${state.host} is lost: the session waits for it to come back, or moves with  durable-agent move ${workflowId} --host <host id> [--workdir <dir>]`,
    );
  }
  if (state.rateLimit) lines.push(rateLimitLine(state.rateLimit));
  for (const call of state.currentToolCalls) lines.push(`  running: ${call.summary}`);
  for (const pending of state.pendingApprovals) {
    const agent = pending.agent ? ` (sub-agent "${pending.agent.description}")` : '';
    lines.push(
      `  waiting for approval: ${pending.summary}${agent}  →  durable-agent approve ${workflowId} ${pending.toolUseId} [--deny] [--feedback "…"]`,
    );
  }
  for (const pending of state.pendingApprovals.filter((call) => call.plan !== undefined))
    lines.push(`  plan to approve (${pending.toolUseId}):`, ...pending.plan!.split('\n').map((line) => `    ${line}`));
  for (const asked of state.pendingQuestions ?? [])
    for (const question of asked.questions)
      lines.push(
        `  question (${asked.toolUseId}) ${question.header}: ${question.question} [${question.options.map((option) => option.label).join(' | ')}]  →  durable-agent answer ${workflowId} ${asked.toolUseId} --answer '${question.header}=…'`,
      );
  if (state.permissionMode) lines.push(`  permission mode: ${state.permissionMode}`);
  if (state.queuedMessages) lines.push(`  queued messages: ${state.queuedMessages}`);
  if (state.lastToolSummary) lines.push(`  last tools: ${state.lastToolSummary}`);
  for (const task of state.backgroundTasks ?? [])
    lines.push(
      `  background ${task.id} ${task.status}: ${task.description}${task.status === 'running' ? `  →  TaskStop, or durable-agent interrupt ${workflowId}` : ''}`,
    );
  for (const child of state.worktrees ?? []) lines.push(`  ${worktreeLine(child)}`);
  if (state.todos?.length)
    lines.push(`  todos (${todoProgress(state.todos)}):`, ...todoLines(state.todos).map((line) => `    ${line}`));
  if (state.snapshots?.length)
    lines.push(
      `  workspace: snapshots after turns ${state.snapshots.map((snapshot) => snapshot.turn).join(', ')} (durable-agent diff, rewind, fork)`,
    );
  return lines;
}

/** `status`: the session's row and details, or (`json`) the same as one JSON object. */
export async function printStatus(
  client: Client,
  store: Store,
  environment: NodeJS.ProcessEnv,
  workflowId: string,
  json: boolean,
): Promise<number> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const [row, calls] = await Promise.all([
    sessionRow(client, description),
    pendingCalls(client.options.loadedDataConverter, description),
  ]);
  const forkedFrom = (description.memo as { forkedFrom?: { workflowId: string; turn: number } } | undefined)
    ?.forkedFrom;
  const forks: string[] = [];
  for await (const fork of client.workflow.list({ query: `${AGENT_FORKED_FROM.name}='${workflowId}'` }))
    forks.push(fork.workflowId);
  if (json) {
    const status = { ...row, taskQueue: description.taskQueue, calls, ...(forkedFrom ? { forkedFrom } : {}), forks };
    console.log(JSON.stringify(status, null, 2));
    return 0;
  }
  console.log(formatTable([row]));
  if (row.state) for (const line of stateDetails(workflowId, row.state)) console.log(line);
  // From the calls' heartbeats, so shown with or without a worker to answer the state query.
  for (const call of calls) console.log(`  progress: ${formatPendingCall(call)}`);
  if (row.source === 'recorded' && row.workflowStatus === 'RUNNING') {
    // A query needs a worker to replay the session: without one, what Temporal recorded.
    console.log(
      `  (no worker answered within ${QUERY_DEADLINE_MS / 1000} s: no worker is polling "${description.taskQueue}" on ${temporalSettings(environment).address}; ` +
        `showing the state recorded at turn ${row.turn ?? '—'})`,
    );
  }
  if (row.result) {
    console.log(formatResult(row.result));
    const snapshots = (await storedSession(handle, store))?.snapshots ?? [];
    if (snapshots.length)
      console.log(
        `  workspace: snapshots after turns ${snapshots.map((snapshot) => snapshot.turn).join(', ')} (durable-agent diff, fork)`,
      );
  } else if (row.workflowStatus !== 'RUNNING') console.log(`  no result: ${row.reason ?? description.status.name}`);
  console.log(
    `  workflow: ${description.status.name}, started ${description.startTime.toISOString()}, task queue ${description.taskQueue}`,
  );
  if (forkedFrom) console.log(`  forked from ${forkedFrom.workflowId} at turn ${forkedFrom.turn}`);
  if (forks.length) console.log(`  forks: ${forks.join(', ')}`);
  return 0;
}

/** What `list` shows: sessions of one status (or all), how many, as JSON or a table. */
export interface ListArguments {
  status?: SessionStatus;
  limit: number;
  json: boolean;
}

/** `list`: the newest `limit` sessions (of one status, if given) as a table, or (`json`) a JSON array. */
export async function printList(client: Client, { status, limit, json }: ListArguments): Promise<number> {
  const filters = [`WorkflowType='${WORKFLOW_TYPE}'`, ...(status ? [statusFilter(status)] : [])];
  const rows: Promise<SessionRow>[] = [];
  // Each row is asked for at once: a running session no worker answers for costs one deadline, not one each.
  for await (const workflow of client.workflow.list({ query: filters.join(' AND ') })) {
    rows.push(sessionRow(client, workflow));
    if (rows.length >= limit) break;
  }
  const table = await Promise.all(rows);
  if (json) {
    console.log(
      JSON.stringify(
        table.map(({ state: _state, result: _result, ...row }) => row),
        null,
        2,
      ),
    );
    return 0;
  }
  if (table.length === 0) {
    console.log('No sessions found.');
    return 0;
  }
  console.log(formatTable(table));
  const unanswered = table.filter((row) => row.source === 'recorded' && row.workflowStatus === 'RUNNING').length;
  if (unanswered)
    console.log(
      `(${unanswered} running session(s) had no worker answer within ${QUERY_DEADLINE_MS / 1000} s: their state as recorded, tokens unknown)`,
    );
  return 0;
}

/** Issue 26: the rate limit waited out now, or the session's totals. */
function rateLimitLine({ until, refusals, waitedMs }: RateLimitView): string {
  const totals = `${refusals} refused, ${Math.round(waitedMs / 1000)} s waited in all`;
  return until ? `  rate limited: waiting until ${until} (${totals})` : `  rate limits: ${totals}`;
}

/** A writing sub-agent: what it is doing or what of it was merged, and where its worktree is. */
export function worktreeLine(child: WorktreeChildView): string {
  const what =
    child.status === 'working'
      ? 'working'
      : child.status === 'not_merged'
        ? `not merged (${child.error ?? 'unfinished'})`
        : `merged ${child.filesMerged ?? 0} file(s)${child.conflicts?.length ? `, conflicts in ${child.conflicts.join(', ')}` : ''}`;
  const where = `${child.worktreeRemoved ? 'removed ' : ''}worktree ${child.worktree}`;
  return `writing agent ${child.toolUseId} "${child.description}": ${what}  (${where})`;
}
