/**
 * A closed session as it stored itself when it ended (result field `transcriptRef`): its last
 * run's transcript and snapshots. What `watch` and `diff` read when no worker is needed to
 * replay the session, or none runs.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, TranscriptEntry } from '../shared/contract';
import type { SnapshotRecord } from '../shared/workspace';
import { getJson } from '../activities/store/content-store';
import type { Store } from '../activities/store/open-store';

export interface StoredSession {
  result: AgentResult;
  transcript: TranscriptEntry[];
  snapshots: SnapshotRecord[];
}

/** Undefined while the session runs, when it failed, or when it ended before sessions stored themselves. */
export async function storedSession(handle: WorkflowHandle, store: Store | undefined): Promise<StoredSession | undefined> {
  if (!store) return undefined;
  const description = await handle.describe().catch(() => undefined);
  if (!description || description.status.name !== 'COMPLETED') return undefined;
  const result = (await handle.result().catch(() => undefined)) as AgentResult | undefined;
  if (!result?.transcriptRef) return undefined;
  const stored = await getJson<{ entries: TranscriptEntry[]; snapshots?: SnapshotRecord[] }>(store.content, result.transcriptRef).catch(() => undefined);
  return stored ? { result, transcript: stored.entries, snapshots: stored.snapshots ?? [] } : undefined;
}
