import type { TranscriptEntry } from '../../../../src/shared/contract';
import type { SnapshotRecord } from '../../../../src/shared/workspace';
import { applySnapshotChange, type TranscriptAppend } from '../../../../src/shared/transcript-chain';
import { TranscriptChain } from '../../../../src/workflows/session/transcript-chain';

const entry = (turn: number): TranscriptEntry => ({ type: 'tool_summary', turn, text: `turn ${turn}` });
const snapshot = (turn: number): SnapshotRecord => ({
  turn,
  ref: `sha256:${String(turn).padStart(64, '0')}`,
  filesChanged: 1,
});

/** A run's transcript and snapshots, and a store that keeps what each activity was given. */
function run(carried?: ReturnType<TranscriptChain['carry']>, startSnapshots: SnapshotRecord[] = []) {
  const transcript: TranscriptEntry[] = [];
  let snapshots = startSnapshots;
  const chain = new TranscriptChain(
    transcript,
    () => snapshots,
    () => true,
  );
  if (carried) chain.restore(carried);
  return {
    chain,
    transcript,
    setSnapshots: (next: SnapshotRecord[]) => (snapshots = next),
  };
}

const nodes = new Map<string, TranscriptAppend>();
beforeEach(() => nodes.clear());
function store(append: TranscriptAppend | undefined): string {
  const ref = `ref${nodes.size}`;
  nodes.set(ref, append!);
  return ref;
}
function read(ref: string | null): { entries: TranscriptEntry[]; snapshots: SnapshotRecord[] } {
  const chain: TranscriptAppend[] = [];
  for (let current = ref; current; current = nodes.get(current)!.prev) chain.unshift(nodes.get(current)!);
  return {
    entries: chain.flatMap((node) => node.entries),
    snapshots: chain.reduce<SnapshotRecord[]>((list, node) => applySnapshotChange(list, node.snapshots), []),
  };
}

test('each activity gets what was added since the last node it stored, whatever came before', () => {
  const { chain, transcript, setSnapshots } = run();
  transcript.push(entry(0));
  setSnapshots([snapshot(0)]);
  const first = chain.mark().transcriptAppend!;
  expect(first).toEqual({ prev: null, entries: [entry(0)], snapshots: { keep: 0, add: [snapshot(0)] } });
  // An entry added while the activity runs goes with the next one.
  transcript.push(entry(1));
  chain.recordTranscriptRef(store(first));
  transcript.push(entry(2));
  const second = chain.mark().transcriptAppend!;
  expect(second).toEqual({ prev: 'ref0', entries: [entry(1), entry(2)] });
  // The call was stopped (nothing returned): the next one carries its entries again.
  transcript.push(entry(3));
  const third = chain.mark().transcriptAppend!;
  expect(third).toEqual({ prev: 'ref0', entries: [entry(1), entry(2), entry(3)] });
  chain.recordTranscriptRef(store(third));
  expect(chain.mark()).toEqual({});
  expect(chain.mark({ always: true }).transcriptAppend).toEqual({ prev: 'ref1', entries: [] });
  expect(read('ref1').entries).toEqual(transcript);
});

test('the chain goes on across continue-as-new with what the run had not stored', () => {
  const first = run();
  first.transcript.push(entry(0), entry(1));
  first.setSnapshots([snapshot(0), snapshot(1)]);
  first.chain.recordTranscriptRef(store(first.chain.mark().transcriptAppend));
  first.transcript.push(entry(2));
  // A rewind just before the boundary drops turn 1's snapshot.
  first.setSnapshots([snapshot(0)]);
  const carried = first.chain.carry();
  expect(JSON.parse(JSON.stringify(carried))).toEqual(carried); // plain JSON, as continue-as-new carries it
  const second = run(carried, [snapshot(0)]);
  second.transcript.push(entry(3));
  second.setSnapshots([snapshot(0), snapshot(3)]);
  const closing = second.chain.mark({ always: true }).transcriptAppend!;
  expect(closing.entries).toEqual([entry(2), entry(3)]);
  expect(read(store(closing))).toEqual({
    entries: [entry(0), entry(1), entry(2), entry(3)],
    snapshots: [snapshot(0), snapshot(3)],
  });
});

test('a run recorded before the chain sends nothing and carries nothing', () => {
  const transcript = [entry(0)];
  const chain = new TranscriptChain(
    transcript,
    () => [],
    () => false,
  );
  expect(chain.mark({ always: true })).toEqual({});
  expect(chain.carry()).toEqual({});
});
