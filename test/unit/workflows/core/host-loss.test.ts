import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { cloneName } from '../../../../src/shared/repository';
import { isHostLoss, movedState, startedBeforeLoss } from '../../../../src/workflows/core/host-loss';
import type { LoopState } from '../../../../src/workflows/core/loop-state';

/** As the SDK converts the server's failure: the timeout keeps the failure it came from (with its cause), not the cause itself. */
const timedOut = (type: 'SCHEDULE_TO_START' | 'HEARTBEAT', cause?: { message: string }) => {
  const timeout = new TimeoutFailure(`activity ${type} timeout`, undefined, type);
  timeout.failure = { message: timeout.message, ...(cause ? { cause } : {}) };
  return new ActivityFailure('activity timed out', 'runTool', '7', RetryState.TIMEOUT, 'worker', timeout);
};

describe('host loss', () => {
  test('is a schedule-to-start timeout of the activity, and nothing else', () => {
    expect(isHostLoss(timedOut('SCHEDULE_TO_START'))).toBe(true);
    expect(isHostLoss(timedOut('HEARTBEAT'))).toBe(false);
    expect(
      isHostLoss(
        new ActivityFailure(
          'failed',
          'runTool',
          '7',
          RetryState.MAXIMUM_ATTEMPTS_REACHED,
          'w',
          ApplicationFailure.create({ message: 'x' }),
        ),
      ),
    ).toBe(false);
    expect(isHostLoss(new Error('SCHEDULE_TO_START'))).toBe(false);
  });

  test('says whether the lost call had started before (the timeout names the earlier attempt as its cause)', () => {
    expect(startedBeforeLoss(timedOut('SCHEDULE_TO_START'))).toBe(false);
    expect(startedBeforeLoss(timedOut('SCHEDULE_TO_START', { message: 'activity Heartbeat timeout' }))).toBe(true);
  });
});

describe('movedState', () => {
  const state = {
    workdir: '/a/s1',
    systemRef: 'sha256:old',
    fileStates: { '/a/s1/x.ts': 'h1', '/a/s1/lib/y.ts': 'h2', '/a/s10/z.ts': 'h3' },
    recentFiles: ['/a/s1/x.ts', '/a/s10/z.ts'],
  } as unknown as LoopState;

  test('moves the files the session knows under the new workdir, and only those', () => {
    const moved = movedState(state, '/b/s1', 'sha256:new');
    expect(moved.workdir).toBe('/b/s1');
    expect(moved.systemRef).toBe('sha256:new');
    expect(moved.fileStates).toEqual({ '/b/s1/x.ts': 'h1', '/b/s1/lib/y.ts': 'h2', '/a/s10/z.ts': 'h3' });
    expect(moved.recentFiles).toEqual(['/b/s1/x.ts', '/a/s10/z.ts']);
  });

  test('keeps the paths when the workdir is the same on the new host', () => {
    expect(movedState(state, '/a/s1', 'sha256:new').fileStates).toBe(state.fileStates);
  });
});

describe('movedState after moves', () => {
  test('movedState records the move', () => {
    const moved = movedState(
      { workdir: '/a/s1', systemRef: 'r', fileStates: {}, recentFiles: [] } as unknown as LoopState,
      '/b/s1',
      'r2',
    );
    expect(moved.workdirMoves).toEqual([{ from: '/a/s1', to: '/b/s1' }]);
  });
});

test('clone names are safe paths, new for every clone of a session', () => {
  expect(cloneName('agent-1', '0f3c9a2e-1111', 0)).toBe('agent-1-0f3c9a2e');
  expect(cloneName('agent-1', '0f3c9a2e-1111', 2)).toBe('agent-1-0f3c9a2e-moved-2');
  expect(cloneName('../x/y', '0f3c9a2e', 0)).toBe('__x_y-0f3c9a2e');
  expect(cloneName('..', 'abcdef12', 0)).toBe('_-abcdef12');
});
