/**
 * `temporal workflow reset`: Temporal starts a new run whose history is the old one up to the
 * chosen workflow task, and the workflow goes on from there, while the files are as the old run
 * left them, later turns and all. Before the new run's first tool, hook or rewind touches them,
 * they are put back to the latest snapshot its history knows (`force`: what was found is kept in
 * the store, its reference in the transcript). The loop state, and with it the read-state, is the
 * replayed one, which matches those files; the edit journal keys calls by run, so nothing of the
 * old run passes for done.
 *
 * What the workflow can tell deterministically: a run made by a reset has a run id other than the
 * one its start event recorded (`originalExecutionRunId`), and the workspace activities return the
 * run they ran under. Where the last one recorded is not this run, the replayed part of the
 * history (recorded under the old run) ends somewhere ahead: `patched()` is false until the run
 * executes anew, then true, and the put-back is recorded there (features.ts).
 */
import { CancellationScope, patched, workflowInfo } from '@temporalio/workflow';
import { restoreWorkspace, WORKSPACE_OPTIONS } from '../activity-options';
import { rewoundFileStates } from '../core/checkpoints';
import { failureMessage } from '../core/failures';
import { RESET_AWARE_WORKSPACE_PATCH } from '../core/features';
import type { LoopState } from '../core/loop-state';
import type { SessionHost } from './session-host';
import type { Entry } from './session-view';
import type { SessionWorkspace } from '../workspace/workspace';

/** What the put-back needs of its session (agent-session.ts), which asks for it. */
export interface ResetSession {
  readonly workspace: SessionWorkspace;
  readonly state: LoopState;
  readonly host: Pick<SessionHost, 'call'>;
  update(next: LoopState): void;
  note(entry: Entry): void;
}

/**
 * The put-back a reset run needs before its next workspace step, or undefined when none is needed
 * (synchronous then: runs that need nothing await nothing more, so their commands keep their order).
 */
export function putBackAfterReset(session: ResetSession): Promise<void> | undefined {
  const workspace = session.workspace;
  if (!workspace.enabled) return undefined;
  if (workspace.puttingBack) return workspace.puttingBack;
  if (!madeByReset(workspace)) return undefined;
  const target = workspace.latestSnapshot;
  if (!target || !patched(`${RESET_AWARE_WORKSPACE_PATCH}:${workspace.lastRun ?? 'none'}`)) return undefined;
  workspace.puttingBack = putBack(session, target).finally(() => (workspace.puttingBack = undefined));
  return workspace.puttingBack;
}

/**
 * This run's files are not its own: its start event names another run (a reset keeps the event),
 * or its history's last workspace activity ran under another run that it did not continue from
 * (the replayer replays every history under the run id its start event names, reset runs too).
 */
function madeByReset(workspace: SessionWorkspace): boolean {
  const { runId, originalExecutionRunId, continuedFromExecutionRunId } = workflowInfo();
  const last = workspace.lastRun;
  if (last === runId) return false;
  const continued = last !== undefined && last === workspace.carriedRun && last === continuedFromExecutionRunId;
  return runId !== originalExecutionRunId || (last !== undefined && !continued);
}

async function putBack(session: ResetSession, target: { turn: number; ref: string }): Promise<void> {
  const { workspace } = session;
  try {
    // A restore runs to its end, even in a workflow being cancelled.
    const outcome = await CancellationScope.nonCancellable(() =>
      session.host.call((where) =>
        restoreWorkspace.executeWithOptions(
          { ...WORKSPACE_OPTIONS, ...where, summary: `reset · files back to turn ${target.turn}` },
          [{ workdir: session.state.workdir, targetRef: target.ref, expectedRef: target.ref, force: true }],
        ),
      ),
    );
    if (outcome.kind !== 'restored') throw new Error('the restore refused to overwrite the files found');
    // The run recorded, not this one: a reset of this run replays it with this run's id.
    workspace.lastRun = outcome.runId ?? workflowInfo().runId;
    // A snapshot missing after its turn (it failed): the reads since then are of other files.
    if (target.turn < session.state.turnCount)
      session.update({
        ...session.state,
        fileStates: rewoundFileStates(workspace.log, target.turn, session.state.workdir),
      });
    session.note({
      type: 'reset',
      snapshotTurn: target.turn,
      ref: target.ref,
      filesRestored: outcome.filesChanged,
      previousSnapshot: outcome.currentRef,
      notRestored: outcome.notRestored,
    });
  } catch (error) {
    // Tried once: the run goes on with the files as they are, and says so.
    workspace.lastRun = workflowInfo().runId;
    session.note({
      type: 'reset',
      snapshotTurn: target.turn,
      ref: target.ref,
      error: `the files could not be put back: ${failureMessage(error)}`,
    });
  }
}
