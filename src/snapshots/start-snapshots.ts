/**
 * Start snapshots kept by session: the first snapshot taken under a key (`<workflow id>/<first
 * run id>`) is the one every later request under that key gets. `temporal workflow reset` to the
 * first workflow task runs the session's start again over files it has changed since: the snapshot
 * it then asks for is this kept one, so its changes (`filesChanged`, a `repo` session's branch)
 * still count from the true start, and the reset run puts the files back to it (reset.ts).
 *
 * Kept in the store's journal (one small record per session, in every store kind) under a
 * journal session of their own, which no session's close removes: a reset can come after the
 * session ended.
 */
import type { EffectJournal } from '../store/effect-journal';

/** The journal session start snapshots are filed under (no workflow id looks like it). */
const START_SNAPSHOTS = 'durable-agent:start-snapshots';
/** The record's `path`: tells a start snapshot from anything else filed under that key. */
const KIND = 'start-snapshot';

export interface KeptStartSnapshot {
  ref: string;
  files: number;
  /** The run that took it. */
  runId?: string;
}

export async function keptStartSnapshot(journal: EffectJournal, key: string): Promise<KeptStartSnapshot | undefined> {
  const record = await journal.find(START_SNAPSHOTS, key);
  if (record?.path !== KIND) return undefined;
  try {
    const kept = JSON.parse(record.message) as Partial<KeptStartSnapshot>;
    return typeof kept.ref === 'string' && kept.ref === record.afterHash
      ? {
          ref: kept.ref,
          files: Number(kept.files) || 0,
          ...(typeof kept.runId === 'string' ? { runId: kept.runId } : {}),
        }
      : undefined;
  } catch {
    return undefined;
  }
}

export async function keepStartSnapshot(
  journal: EffectJournal,
  key: string,
  snapshot: KeptStartSnapshot,
): Promise<void> {
  await journal.record(START_SNAPSHOTS, key, {
    path: KIND,
    beforeHash: null,
    afterHash: snapshot.ref,
    message: JSON.stringify(snapshot),
  });
}
