/**
 * What `durable-agent diff` prints: the session's changes between two of its snapshots, through
 * the `diff` and `state` queries the Temporal CLI uses too, or (a closed session) from the
 * snapshots it stored, with no worker needed. Snapshots are read from the content store
 * (AGENT_CONTENT_DIR), as workers write them.
 */
import type { Client } from '@temporalio/client';
import { formatDiffStat, diffStat, unifiedDiff } from '../snapshots/unified-diff';
import type { Store } from '../store/open-store';
import type { AgentState } from '../shared/contract';
import { diffQuery, stateQuery } from '../workflows/definitions';
import { diffRange } from '../workflows/core/checkpoints';
import { storedSession } from './stored-session';
import { answeredInTime, QUERY_DEADLINE_MS } from './cli-client';

export interface DiffArguments {
  workflowId: string;
  /** `--turn N`, when given: what turn N changed (it sets fromTurn and toTurn too). */
  turn?: number;
  fromTurn?: number;
  toTurn?: number;
  stat: boolean;
}

export async function printDiff(
  client: Client,
  opened: Store,
  { workflowId, turn, fromTurn, toTurn, stat }: DiffArguments,
): Promise<number> {
  const store = opened.content;
  const request = { ...(fromTurn !== undefined ? { fromTurn } : {}), ...(toTurn !== undefined ? { toTurn } : {}) };
  const handle = client.workflow.getHandle(workflowId);
  // A closed session's snapshots are in the store: no worker needed to replay it.
  const stored = await storedSession(handle, opened);
  const asked = [toTurn, turn === undefined ? fromTurn : undefined].filter((value) => value !== undefined);
  const turns = stored ? stored.result.turnCount : () => answeredInTime(client, () => handle.query(stateQuery));
  if (asked.length) await checkTurnsExist(workflowId, Math.max(...asked), turns);
  const range = stored
    ? diffRange({ checkpoints: [], snapshots: stored.snapshots }, request)
    : await answeredInTime(client, () => handle.query(diffQuery, request));
  if (!range) {
    const { taskQueue } = await handle.describe();
    throw new Error(
      `no worker answered within ${QUERY_DEADLINE_MS / 1000} s (is one polling "${taskQueue}"?), and ${workflowId} has not ended with its snapshots stored: start a worker (npm run worker)`,
    );
  }
  const text = stat
    ? formatDiffStat(await diffStat(store, range.fromRef, range.toRef))
    : await unifiedDiff(store, range.fromRef, range.toRef);
  process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  return 0;
}

/**
 * A turn the session has not reached would diff its last snapshot with itself: an empty diff
 * that looks like "nothing changed". `turns`: the session's turn count, or how to ask for it
 * (unanswered: the diff query, which needs the same worker, says so next).
 */
async function checkTurnsExist(
  workflowId: string,
  highest: number,
  turns: number | (() => Promise<AgentState | undefined>),
): Promise<void> {
  const reached = typeof turns === 'number' ? turns : (await turns())?.turn;
  if (reached !== undefined && highest > reached) {
    const where = typeof turns === 'number' ? 'ended after' : 'is at';
    throw new Error(`turn ${highest} does not exist: ${workflowId} ${where} turn ${reached}`);
  }
}
