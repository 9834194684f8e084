/**
 * A closed session as it stored itself (result field `transcriptRef`): its transcript, every run
 * of it, and its last list of snapshots (sessions closed before the transcript was stored per
 * step: the last run's only). What `watch`, `status` and `diff` read when no worker is needed to
 * replay the session, or none runs.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, TranscriptEntry } from '../shared/contract';
import type { SnapshotRecord } from '../shared/workspace';
import { readStoredTranscript } from '../store/transcript-chain';
import type { Store } from '../store/open-store';

export interface StoredSession {
  result: AgentResult;
  transcript: TranscriptEntry[];
  snapshots: SnapshotRecord[];
}

/** Undefined while the session runs, when it failed, or when it ended before sessions stored themselves. */
export async function storedSession(
  handle: WorkflowHandle,
  store: Store | undefined,
): Promise<StoredSession | undefined> {
  if (!store) return undefined;
  const description = await handle.describe().catch(() => undefined);
  if (!description || description.status.name !== 'COMPLETED') return undefined;
  const result = (await handle.result().catch(() => undefined)) as AgentResult | undefined;
  if (!result?.transcriptRef) return undefined;
  const stored = await readStoredTranscript(store.content, result.transcriptRef).catch(() => undefined);
  return stored ? { result, transcript: stored.entries, snapshots: stored.snapshots } : undefined;
}
