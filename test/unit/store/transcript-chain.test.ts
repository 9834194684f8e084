import { LocalContentStore, putJson } from '../../../src/store/content-store';
import { readStoredTranscript, storeTranscriptNode } from '../../../src/store/transcript-chain';
import type { TranscriptEntry } from '../../../src/shared/contract';
import { scratchDir } from '../../support/paths';

let store: LocalContentStore;
beforeEach(() => {
  store = new LocalContentStore(scratchDir('store'));
});

const entry = (turn: number, text: string): TranscriptEntry => ({ type: 'tool_summary', turn, text });
const snapshot = (turn: number) => ({ turn, ref: `sha256:${String(turn).padStart(64, 'a')}`, filesChanged: 1 });

test('the chain reads back as the whole transcript, in order, with the last list of snapshots', async () => {
  const first = await storeTranscriptNode(store, {
    prev: null,
    entries: [entry(0, 'a')],
    snapshots: { keep: 0, add: [snapshot(0)] },
  });
  const second = await storeTranscriptNode(store, {
    prev: first,
    entries: [entry(1, 'b'), entry(1, 'c')],
    snapshots: { keep: 1, add: [snapshot(1)] },
  });
  // A rewind to turn 0: the snapshot of turn 1 goes.
  const third = await storeTranscriptNode(store, {
    prev: second,
    entries: [entry(2, 'd')],
    snapshots: { keep: 1, add: [] },
  });
  expect(await readStoredTranscript(store, second)).toEqual({
    entries: [entry(0, 'a'), entry(1, 'b'), entry(1, 'c')],
    snapshots: [snapshot(0), snapshot(1)],
  });
  expect(await readStoredTranscript(store, third)).toEqual({
    entries: [entry(0, 'a'), entry(1, 'b'), entry(1, 'c'), entry(2, 'd')],
    snapshots: [snapshot(0)],
  });
});

test('a retried activity stores the same node under the same reference', async () => {
  const append = { prev: null, entries: [entry(0, 'a')] };
  expect(await storeTranscriptNode(store, append)).toBe(await storeTranscriptNode(store, { ...append }));
});

test('a transcript stored whole, as sessions closed before the chain did, still reads', async () => {
  const ref = await putJson(store, { entries: [entry(3, 'old')], snapshots: [snapshot(0)] });
  expect(await readStoredTranscript(store, ref)).toEqual({ entries: [entry(3, 'old')], snapshots: [snapshot(0)] });
  const withoutSnapshots = await putJson(store, { entries: [entry(3, 'old')] });
  expect(await readStoredTranscript(store, withoutSnapshots)).toEqual({ entries: [entry(3, 'old')], snapshots: [] });
});

test('a chain that leads to something that is no node is an error, not a short transcript', async () => {
  const old = await putJson(store, { entries: [entry(3, 'old')] });
  const node = await storeTranscriptNode(store, { prev: old, entries: [entry(4, 'new')] });
  await expect(readStoredTranscript(store, node)).rejects.toThrow('is not a node of a stored transcript');
});
