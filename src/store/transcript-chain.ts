/**
 * The stored transcript (shared/transcript-chain.ts): one node per step, written by the activity
 * that carried the step's additions, and read back whole by clients with no worker to ask.
 */
import type { TranscriptEntry } from '../shared/contract';
import { applySnapshotChange, type TranscriptAppend, type TranscriptNode } from '../shared/transcript-chain';
import type { SnapshotRecord } from '../shared/workspace';
import { type ContentStore, getJson, putJson } from './content-store';

export interface StoredTranscript {
  entries: TranscriptEntry[];
  snapshots: SnapshotRecord[];
}

/** Content-addressed: the same append (a retry's) gives the same node and reference. */
export function storeTranscriptNode(store: ContentStore, append: TranscriptAppend): Promise<string> {
  const node: TranscriptNode = {
    prev: append.prev,
    entries: append.entries,
    ...(append.snapshots ? { snapshots: append.snapshots } : {}),
  };
  return putJson(store, node);
}

/** What sessions closed before the chain stored: the last run's transcript in one object. */
type WholeTranscript = { entries: TranscriptEntry[]; snapshots?: SnapshotRecord[] };

/** The whole transcript and the last list of snapshots, from the chain's last node (or an object of the old format). */
export async function readStoredTranscript(store: ContentStore, ref: string): Promise<StoredTranscript> {
  const nodes: TranscriptNode[] = [];
  for (let current: string | null = ref; current !== null;) {
    const stored: TranscriptNode | WholeTranscript = await getJson<TranscriptNode | WholeTranscript>(store, current);
    if (!('prev' in stored)) {
      if (nodes.length === 0) return { entries: stored.entries, snapshots: stored.snapshots ?? [] };
      throw new Error(`${current} is not a node of a stored transcript`);
    }
    nodes.push(stored);
    current = stored.prev;
  }
  nodes.reverse();
  let snapshots: SnapshotRecord[] = [];
  for (const node of nodes) snapshots = applySnapshotChange(snapshots, node.snapshots);
  return { entries: nodes.flatMap((node) => node.entries), snapshots };
}
