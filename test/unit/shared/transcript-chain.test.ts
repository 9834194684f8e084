import {
  applySnapshotChange,
  composeSnapshotChanges,
  type SnapshotChange,
  snapshotChange,
} from '../../../src/shared/transcript-chain';
import type { SnapshotRecord } from '../../../src/shared/workspace';

const record = (turn: number, filesChanged = 1): SnapshotRecord => ({
  turn,
  ref: `sha256:${String(turn).padStart(64, '0')}`,
  filesChanged,
});

test('a change keeps the common start of the lists and adds the rest', () => {
  expect(snapshotChange([record(0)], [record(0)])).toBeUndefined();
  expect(snapshotChange([record(0)], [record(0), record(2)])).toEqual({ keep: 1, add: [record(2)] });
  // A second snapshot in the same turn replaces its record; a rewind drops later turns'.
  expect(snapshotChange([record(0), record(2)], [record(0), record(2, 3)])).toEqual({ keep: 1, add: [record(2, 3)] });
  expect(snapshotChange([record(0), record(2), record(4)], [record(0)])).toEqual({ keep: 1, add: [] });
});

test('applying the change from one list to another gives the other', () => {
  const lists = [[], [record(0)], [record(0), record(1)], [record(0), record(1, 2)], [record(0), record(3), record(5)]];
  for (const from of lists)
    for (const to of lists) expect(applySnapshotChange(from, snapshotChange(from, to))).toEqual(to);
});

test('two changes composed do what the first then the second did', () => {
  const lists = [
    [],
    [record(0)],
    [record(0), record(1)],
    [record(0), record(1, 2)],
    [record(0), record(3), record(5)],
    [record(7)],
  ];
  for (const first of lists) {
    for (const second of lists) {
      for (const third of lists) {
        const a: SnapshotChange | undefined = snapshotChange(first, second);
        const b = snapshotChange(second, third);
        expect(applySnapshotChange(first, composeSnapshotChanges(a, b))).toEqual(third);
      }
    }
  }
});
