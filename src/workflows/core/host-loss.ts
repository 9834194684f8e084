/**
 * Host loss, as the workflow sees it: a workspace activity on a host's queue that no worker of
 * the host picked up within `hostLossTimeoutMs` fails with a schedule-to-start timeout (Temporal
 * does not retry those: the queue is the same). A host that died with a call running is noticed
 * first by the heartbeat timeout; the retry then waits in the queue and times out the same way.
 * Pure functions over plain data.
 */
import { ActivityFailure, TimeoutFailure } from '@temporalio/workflow';
import type { LoopState } from './loop-state';
import { movedPath } from './workdir-moves';

export function isHostLoss(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof TimeoutFailure &&
    error.cause.timeoutType === 'SCHEDULE_TO_START'
  );
}

/**
 * The lost call had started on the host (an attempt ran, then the retry found no worker): the
 * server names the earlier attempt's failure as the timeout's cause. The SDK drops a timeout's
 * cause when it converts it, but keeps the failure it converted.
 */
export function startedBeforeLoss(error: unknown): boolean {
  return isHostLoss(error) && Boolean(((error as ActivityFailure).cause as TimeoutFailure).failure?.cause);
}

/**
 * The loop state once the session's files live in `workdir` on another host: the files it read
 * are the same files under the new path (their content came back with the snapshot), and the
 * system prompt names the new working directory.
 */
export function movedState(state: LoopState, workdir: string, systemRef: string): LoopState {
  const from = state.workdir;
  if (from === workdir) return { ...state, systemRef };
  return {
    ...state,
    workdir,
    systemRef,
    workdirMoves: [...(state.workdirMoves ?? []), { from, to: workdir }],
    fileStates: Object.fromEntries(
      Object.entries(state.fileStates).map(([path, hash]) => [movedPath(path, from, workdir), hash]),
    ),
    recentFiles: state.recentFiles.map((path) => movedPath(path, from, workdir)),
  };
}
