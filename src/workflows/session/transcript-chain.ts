/**
 * The session's stored transcript as the workflow keeps it (shared/transcript-chain.ts): the
 * reference of the chain's last node, and how far this run's transcript and snapshots are in it.
 * What was added since rides on the next model call, which stores it as a node and returns the
 * node's reference; the session's close stores the rest. A call that fails or is stopped returns
 * nothing: its entries stay pending and go with the next one (a node it may have stored is never
 * pointed to). So every activity input holds one step's entries, whatever the session's length.
 */
import { patched } from '@temporalio/workflow';
import type { TranscriptMark } from '../../shared/activity-io';
import type { TranscriptEntry } from '../../shared/contract';
import { composeSnapshotChanges, type SnapshotChange, snapshotChange } from '../../shared/transcript-chain';
import type { SnapshotRecord } from '../../shared/workspace';
import { TRANSCRIPT_BY_REFERENCE_PATCH } from '../core/features';

/** What a run hands to the next when it continues as new: the chain's last node and what is not in it yet. */
export interface CarriedTranscriptChain {
  transcriptChain?: { head: string | null; entries: TranscriptEntry[]; snapshots?: SnapshotChange };
}

/** What one activity was given to store: where the run's transcript and snapshots will be once it returns. */
interface InFlight {
  entriesEnd: number;
  snapshots: readonly SnapshotRecord[];
}

export class TranscriptChain {
  private head: string | null = null;
  /** This run's transcript entries already in the chain. */
  private storedEntries = 0;
  /** The list of snapshots as the chain's last node leaves it. */
  private storedSnapshots: readonly SnapshotRecord[] = [];
  /** What an earlier run added and no activity stored before it continued as new. */
  private carried: { entries: TranscriptEntry[]; snapshots?: SnapshotChange } = { entries: [] };
  private inFlight: InFlight | undefined;
  private on: boolean | undefined;

  constructor(
    private readonly transcript: readonly TranscriptEntry[],
    private readonly snapshots: () => readonly SnapshotRecord[],
    /** Whether this run stores its transcript per step (a function: unit tests run outside a workflow). */
    private readonly askPatched: () => boolean = () => patched(TRANSCRIPT_BY_REFERENCE_PATCH),
  ) {}

  /**
   * Asked at the run's first model call (or its close): a run recorded before the chain sent
   * neither, and replays without the marker, closing with its whole transcript as it did.
   */
  enabled(): boolean {
    this.on ??= this.askPatched();
    return this.on;
  }

  /** For the next activity that stores the transcript: what was added since the chain's last node. */
  mark({ always }: { always: boolean } = { always: false }): TranscriptMark {
    if (!this.enabled()) return {};
    const current = this.snapshots();
    const entries = [...this.carried.entries, ...this.transcript.slice(this.storedEntries)];
    const snapshots = composeSnapshotChanges(this.carried.snapshots, snapshotChange(this.storedSnapshots, current));
    if (!always && entries.length === 0 && !snapshots) return {};
    this.inFlight = { entriesEnd: this.transcript.length, snapshots: [...current] };
    return { transcriptAppend: { prev: this.head, entries, ...(snapshots ? { snapshots } : {}) } };
  }

  /** The activity given the last mark returned: its node is now the chain's last. */
  recordTranscriptRef(transcriptRef: string | undefined): void {
    const sent = this.inFlight;
    this.inFlight = undefined;
    if (!transcriptRef || !sent) return;
    this.head = transcriptRef;
    this.storedEntries = sent.entriesEnd;
    this.storedSnapshots = sent.snapshots;
    this.carried = { entries: [] };
  }

  carry(): CarriedTranscriptChain {
    if (!this.enabled()) return {};
    const entries = [...this.carried.entries, ...this.transcript.slice(this.storedEntries)];
    const snapshots = composeSnapshotChanges(
      this.carried.snapshots,
      snapshotChange(this.storedSnapshots, this.snapshots()),
    );
    return { transcriptChain: { head: this.head, entries, ...(snapshots ? { snapshots } : {}) } };
  }

  /** Goes on from the chain an earlier run carried (none: it was recorded before the chain, which starts here). */
  restore(carried: CarriedTranscriptChain): void {
    const chain = carried.transcriptChain;
    this.storedSnapshots = [...this.snapshots()];
    if (!chain) return;
    this.head = chain.head;
    this.carried = { entries: chain.entries, ...(chain.snapshots ? { snapshots: chain.snapshots } : {}) };
  }
}
