import type { ConversationMessage } from '../../../../src/shared/conversation';
import {
  checkpointStored,
  checkRewind,
  diffRange,
  EMPTY_TURN_LOG,
  forkedState,
  forkPoint,
  recordCheckpoint,
  recordSnapshot,
  rewoundFileStates,
  rewoundLog,
  rewoundState,
  snapshotAt,
  startSnapshot,
  turnEndFor,
  type TurnLog,
} from '../../../../src/workflows/core/checkpoints';
import { readStateAt } from '../../../../src/workflows/core/read-state';
import { loopState } from '../../../support/loop-state';

const ref = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
const assistant = (n: number): ConversationMessage => ({
  role: 'assistant',
  kind: 'assistant',
  ref: ref(100 + n),
  chars: 10,
});
const results: ConversationMessage = {
  role: 'user',
  kind: 'tool_results',
  results: [{ toolUseId: 't1', isError: false, content: { text: 'ok' } }],
};
const context = { currentTurn: 3, interactive: false, finished: false, rewinding: false };

/** A session of three turns with tools: checkpoints stored by the next model calls, snapshots after turns 0, 1 and 3. */
function threeTurns(): TurnLog {
  let log = recordSnapshot(EMPTY_TURN_LOG, { turn: 0, ref: ref(0), filesChanged: 0 });
  log = recordCheckpoint(log, loopState(), true);
  log = checkpointStored(log, ref(10));
  for (const turn of [1, 2, 3]) {
    log = recordCheckpoint(
      log,
      loopState({
        turnCount: turn,
        conversationRef: ref(10 + turn - 1),
        messageCount: turn * 2 - 1,
        pendingMessages: [assistant(turn), results],
      }),
      true,
    );
    if (turn !== 2) log = recordSnapshot(log, { turn, ref: ref(turn), filesChanged: turn });
    if (turn !== 3) log = checkpointStored(log, ref(10 + turn));
  }
  return log;
}

describe('the turn log', () => {
  test("a checkpoint holds its turn's messages only until an activity stores them", () => {
    const state = loopState({
      turnCount: 2,
      conversationRef: ref(7),
      messageCount: 3,
      pendingMessages: [assistant(2), results],
    });
    const log = recordCheckpoint(EMPTY_TURN_LOG, state, true);
    expect(
      turnEndFor(log, {
        ...state,
        pendingMessages: [...state.pendingMessages, { role: 'user', kind: 'text', content: { text: 'queued' } }],
      }),
    ).toBe(2);
    const stored = checkpointStored(log, ref(8));
    expect(stored.checkpoints).toEqual([
      {
        turn: 2,
        conversationRef: ref(8),
        messageCount: 5,
        contextTokens: expect.any(Number),
        endsWithUser: true,
        reads: {},
      },
    ]);
    expect(turnEndFor(stored, state)).toBeUndefined();
  });

  test('no turn end when the conversation moved on without storing the checkpoint (a rewind, an edit)', () => {
    const state = loopState({ turnCount: 2, conversationRef: ref(7), pendingMessages: [assistant(2), results] });
    const log = recordCheckpoint(EMPTY_TURN_LOG, state, true);
    expect(turnEndFor(log, { ...state, conversationRef: ref(9) })).toBeUndefined();
    expect(checkpointStored(log, undefined)).toBe(log);
  });

  test('the files of a turn are those of the last snapshot at or before it; one per turn', () => {
    const log = threeTurns();
    expect(snapshotAt(log, 2)?.ref).toBe(ref(1));
    expect(snapshotAt(log, 3)?.ref).toBe(ref(3));
    const again = recordSnapshot(log, { turn: 3, ref: ref(33), filesChanged: 2 });
    expect(again.snapshots.at(-1)).toEqual({ turn: 3, ref: ref(33), filesChanged: 5 });
    expect(again.snapshots).toHaveLength(3);
  });
});

describe('rewind', () => {
  test('validates what can be known without files, with messages that say what to do', () => {
    const log = threeTurns();
    expect(checkRewind(log, { turn: 2 }, context)).toEqual({
      ok: true,
      request: { turn: 2, files: true, force: false },
    });
    expect(checkRewind(log, { turn: 4 }, context)).toMatchObject({
      ok: false,
      message: expect.stringContaining('has not happened yet'),
    });
    expect(checkRewind(log, { turn: 1.5 }, context)).toMatchObject({
      ok: false,
      message: 'turn: must be a whole number ≥ 0',
    });
    expect(checkRewind(log, { turn: 1, files: 'yes' as never }, context)).toMatchObject({
      ok: false,
      message: 'files: must be true or false',
    });
    expect(checkRewind(log, { turn: 1 }, { ...context, rewinding: true })).toMatchObject({
      ok: false,
      message: 'a rewind is already in progress',
    });
    expect(checkRewind(log, { turn: 1 }, { ...context, finished: true })).toMatchObject({
      ok: false,
      message: 'the session has ended',
    });
    expect(checkRewind(EMPTY_TURN_LOG, { turn: 0 }, context)).toMatchObject({
      ok: false,
      message: expect.stringContaining('turns that can be rewound to: none'),
    });
    expect(checkRewind(undefined as never, undefined, context)).toMatchObject({ ok: false });
  });

  test('a turn that ended with an answer is a rewind target only for interactive sessions', () => {
    const log = recordCheckpoint(threeTurns(), loopState({ turnCount: 3, pendingMessages: [assistant(3)] }), false);
    expect(checkRewind(log, { turn: 3 }, context)).toMatchObject({
      ok: false,
      message: expect.stringContaining('ended without tool calls'),
    });
    expect(checkRewind(log, { turn: 3 }, { ...context, interactive: true })).toMatchObject({ ok: true });
  });

  test('the state goes back to the checkpoint: conversation, turn, fresh budgets, and no stale file hashes', () => {
    const log = threeTurns();
    const now = loopState({
      turnCount: 3,
      conversationRef: ref(12),
      messageCount: 5,
      fileStates: { '/real/repo/a': 'x' },
      recentFiles: ['/real/repo/a'],
      stopHookActive: true,
      hasAttemptedReactiveCompact: true,
    });
    const back = rewoundState(
      now,
      log.checkpoints.find((entry) => entry.turn === 1)!,
      { filesRestored: true },
    );
    expect(back).toMatchObject({
      turnCount: 1,
      conversationRef: ref(11),
      messageCount: 3,
      pendingMessages: [],
      lastTransition: 'rewind',
      fileStates: {},
      recentFiles: [],
      stopHookActive: false,
      hasAttemptedReactiveCompact: false,
    });
    // The latest turn's checkpoint still holds its messages: they come back as pending.
    const latest = rewoundState(now, log.checkpoints.at(-1)!, { filesRestored: false });
    expect(latest).toMatchObject({
      turnCount: 3,
      conversationRef: ref(12),
      pendingMessages: [assistant(3), results],
      fileStates: { '/real/repo/a': 'x' },
    });
  });

  test("later turns leave the log; with the files kept, they become the turn's files", () => {
    const log = threeTurns();
    expect(rewoundLog(log, 1, {})).toEqual({
      checkpoints: log.checkpoints.slice(0, 2),
      snapshots: log.snapshots.slice(0, 2),
    });
    expect(rewoundLog(log, 2, { currentRef: ref(3) }).snapshots).toEqual([
      ...log.snapshots.slice(0, 2),
      { turn: 2, ref: ref(3), filesChanged: 0 },
    ]);
    expect(startSnapshot(rewoundLog(log, 2, { currentRef: ref(3) }))).toBe(ref(0));
  });

  test('a rewind to turn 0 that keeps the files remembers what the session started from, through later rewinds', () => {
    const log = threeTurns();
    expect(startSnapshot(log)).toBe(ref(0));
    const kept = rewoundLog(log, 0, { currentRef: ref(3) });
    expect(kept.snapshots).toEqual([{ turn: 0, ref: ref(3), filesChanged: 0 }]);
    expect(startSnapshot(kept)).toBe(ref(0));
    expect(
      startSnapshot(
        rewoundLog(recordSnapshot(kept, { turn: 1, ref: ref(4), filesChanged: 1 }), 0, { currentRef: ref(4) }),
      ),
    ).toBe(ref(0));
    expect(startSnapshot(rewoundLog(kept, 0, {}))).toBe(ref(0));
    // Files restored to turn 0: its snapshot is still the first.
    expect(rewoundLog(log, 0, {})).not.toHaveProperty('start');
    expect(startSnapshot(EMPTY_TURN_LOG)).toBeUndefined();
  });
});

describe('fork and diff', () => {
  test("a fork point is the turn's conversation and files; the fork goes on from it with its instruction", () => {
    const log = threeTurns();
    const point = forkPoint(log, 2, 'claude-sonnet-5-5')!;
    expect(point).toEqual({
      turn: 2,
      snapshotRef: ref(1),
      conversationRef: ref(12),
      messageCount: 5,
      pending: [],
      contextTokens: expect.any(Number),
      endsWithUser: true,
      model: 'claude-sonnet-5-5',
      readState: {},
    });
    expect(forkPoint(log, 7, 'm')).toBeUndefined();
    const state = forkedState(loopState(), point);
    expect(state).toMatchObject({
      turnCount: 2,
      conversationRef: ref(12),
      messageCount: 5,
      pendingMessages: [{ role: 'user', kind: 'text', content: { text: 'do it' } }],
    });
  });

  test('diff compares the first and last snapshots by default, or those of the turns asked for', () => {
    const log = threeTurns();
    expect(diffRange(log)).toEqual({ fromTurn: 0, toTurn: 3, fromRef: ref(0), toRef: ref(3) });
    expect(diffRange(log, { fromTurn: 2, toTurn: 3 })).toEqual({
      fromTurn: 2,
      toTurn: 3,
      fromRef: ref(1),
      toRef: ref(3),
    });
    expect(() => diffRange(EMPTY_TURN_LOG)).toThrow('no workspace snapshots');
  });
});

const hash = (n: number) => String(n).padStart(64, 'a');

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

describe('a rewind puts the read-state of its turn back', () => {
  test('the files as read by then, under the workdir the session has now; later reads are forgotten', () => {
    const log = readingTurns();
    const now = loopState({ turnCount: 3, fileStates: { '/real/repo/a': hash(11), '/real/repo/sub/d': hash(4) } });
    const fileStates = rewoundFileStates(log, 1, '/real/repo');
    expect(fileStates).toEqual({ '/real/repo/a': hash(1), '/real/repo/b': hash(2) });
    const back = rewoundState(now, log.checkpoints[1]!, { filesRestored: true, fileStates });
    expect(back).toMatchObject({
      turnCount: 1,
      fileStates: { '/real/repo/a': hash(1), '/real/repo/b': hash(2) },
      recentFiles: [],
    });
    // Conversation only: a keeps the hash the model read, so the Edit tool finds it changed on disk.
    const conversationOnly = rewoundState(now, log.checkpoints[1]!, { filesRestored: false, fileStates });
    expect(conversationOnly.fileStates).toEqual({ '/real/repo/a': hash(1), '/real/repo/b': hash(2) });
    expect(rewoundFileStates(log, 2, '/moved/repo')).toEqual({
      '/moved/repo/a': hash(11),
      '/moved/repo/b': hash(2),
      '/moved/repo/c': hash(3),
    });
  });

  test('turns after the rewind record their changes against the rewound state', () => {
    const rewound = rewoundLog(readingTurns(), 1, {});
    const next = recordCheckpoint(
      rewound,
      loopState({ turnCount: 2, fileStates: { '/real/repo/a': hash(1), '/real/repo/e': hash(6) } }),
      true,
    );
    expect(next.checkpoints.at(-1)!.reads).toEqual({ e: hash(6), b: null });
    expect(readStateAt(next.checkpoints, 2)).toEqual({ a: hash(1), e: hash(6) });
  });
});

describe('a fork starts with the read-state of its turn', () => {
  test('the fork point carries it relative to the workdir; the fork holds it under its own', () => {
    const point = forkPoint(readingTurns(), 2, 'm')!;
    expect(point.readState).toEqual({ a: hash(11), b: hash(2), c: hash(3) });
    const forked = forkedState(loopState({ workdir: '/forks/copy' }), point);
    expect(forked.fileStates).toEqual({
      '/forks/copy/a': hash(11),
      '/forks/copy/b': hash(2),
      '/forks/copy/c': hash(3),
    });
    const { readState: _none, ...older } = point;
    expect(forkedState(loopState({ workdir: '/forks/copy' }), older).fileStates).toEqual({});
  });
});
