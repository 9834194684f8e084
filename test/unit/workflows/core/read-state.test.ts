import {
  EMPTY_TURN_LOG,
  recordCheckpoint,
  recordSnapshot,
  rewoundFileStates,
  type TurnLog,
} from '../../../../src/workflows/core/checkpoints';
import { latestReads, readStateAt, readsOfTurn, relativeReadState } from '../../../../src/workflows/core/read-state';
import { loopState } from '../../../support/loop-state';

const hash = (n: number) => String(n).padStart(64, 'a');
const ref = (n: number) => `sha256:${String(n).padStart(64, '0')}`;

/** Turn 1 reads a and b, turn 2 edits a and reads c, turn 3 reads d; snapshots after every turn. */
function readingTurns(): TurnLog {
  const turns: Record<string, string>[] = [
    {},
    { '/real/repo/a': hash(1), '/real/repo/b': hash(2) },
    { '/real/repo/a': hash(11), '/real/repo/b': hash(2), '/real/repo/c': hash(3) },
    { '/real/repo/a': hash(11), '/real/repo/b': hash(2), '/real/repo/c': hash(3), '/real/repo/sub/d': hash(4) },
  ];
  return turns.reduce(
    (log, fileStates, turn) =>
      recordSnapshot(recordCheckpoint(log, loopState({ turnCount: turn, fileStates }), true), {
        turn,
        ref: ref(turn),
        filesChanged: 1,
      }),
    EMPTY_TURN_LOG,
  );
}

describe('the read-state a checkpoint keeps', () => {
  test('each checkpoint holds only what its turn changed; folded, they give the state of any turn', () => {
    const log = readingTurns();
    expect(log.checkpoints.map((checkpoint) => checkpoint.reads)).toEqual([
      {},
      { a: hash(1), b: hash(2) },
      { a: hash(11), c: hash(3) },
      { 'sub/d': hash(4) },
    ]);
    expect(readStateAt(log.checkpoints, 1)).toEqual({ a: hash(1), b: hash(2) });
    expect(readStateAt(log.checkpoints, 2)).toEqual({ a: hash(11), b: hash(2), c: hash(3) });
    expect(readStateAt(log.checkpoints, 0)).toEqual({});
  });

  test('a file the session forgot is recorded as forgotten, and a checkpoint without reads makes the state unknown', () => {
    const log = readingTurns();
    expect(readsOfTurn(log.checkpoints, 3, { b: hash(2) })).toEqual({ a: null, c: null });
    const withOld: TurnLog = {
      ...log,
      checkpoints: log.checkpoints.map(({ reads, ...checkpoint }) =>
        checkpoint.turn === 1 ? checkpoint : { ...checkpoint, reads },
      ),
    };
    expect(readStateAt(withOld.checkpoints, 0)).toEqual({});
    expect(readStateAt(withOld.checkpoints, 2)).toBeUndefined();
    expect(rewoundFileStates(withOld, 2, '/real/repo')).toEqual({});
  });

  test('paths are kept relative to the workdir: files outside it are left out, a file called __proto__ is kept', () => {
    expect(
      relativeReadState(
        { '/real/repo/x': hash(1), '/real/repository/y': hash(2), '/real/repo': hash(3), '/elsewhere/z': hash(4) },
        '/real/repo',
      ),
    ).toEqual({ x: hash(1) });
    const log = recordCheckpoint(
      EMPTY_TURN_LOG,
      loopState({ turnCount: 1, fileStates: { '/real/repo/__proto__': hash(5) } }),
      true,
    );
    expect(Object.entries(readStateAt(log.checkpoints, 1)!)).toEqual([['__proto__', hash(5)]]);
  });
});

describe('what a fork point carries of it', () => {
  test('at most so many entries, those changed last', () => {
    const log = readingTurns();
    const state = readStateAt(log.checkpoints, 3)!;
    expect(Object.keys(state)).toEqual(['b', 'a', 'c', 'sub/d']);
    expect(latestReads(state, 2)).toEqual({ c: hash(3), 'sub/d': hash(4) });
    expect(latestReads(state, 10)).toBe(state);
  });
});
