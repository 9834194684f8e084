/**
 * Carries out a rewind between turns: the files go back to the turn's snapshot (an activity that
 * refuses when someone changed files beside the session, unless forced), then the conversation
 * goes back to the turn's checkpoint, and the transition `rewind` is shown. Each step is recorded
 * in history, so a worker that dies half-way resumes the rewind and completes it exactly once:
 * the restore activity is retried (it is resumable: files already put back count as done), and
 * the state change happens once, in the workflow.
 */
import { CancellationScope } from '@temporalio/workflow';
import type { RewindResult } from '../../shared/contract';
import { ErrorType } from '../../shared/errors';
import type { RestoreWorkspaceOutput } from '../../shared/workspace';
import { restoreWorkspace, WORKSPACE_OPTIONS } from '../activity-options';
import type { AgentSession } from '../session/agent-session';
import { failureMessage } from '../core/failures';

/** What a rewind between turns uses of the session: a phase takes what it needs, not the whole session. */
export type RewindSession = Pick<
  AgentSession,
  'host' | 'rewindTo' | 'setStatus' | 'state' | 'workspace' | 'workspaceReady'
>;

/** `applied`: the session went back; `endsWithUser`: the turn it went back to leaves the model something to answer. */
export interface RewindOutcome {
  applied: boolean;
  endsWithUser: boolean;
}

const NOT_APPLIED: RewindOutcome = { applied: false, endsWithUser: false };

export async function applyRewind(session: RewindSession): Promise<RewindOutcome> {
  const workspace = session.workspace;
  const taken = workspace.takeRewind();
  if (!taken) return NOT_APPLIED;
  const { request, ticket } = taken;
  await session.workspaceReady();
  const checkpoint = workspace.checkpointOf(request.turn)!;
  session.setStatus('rewinding');

  let restored: Extract<RestoreWorkspaceOutput, { kind: 'restored' }> | undefined;
  if (request.files) {
    const targetRef = workspace.snapshotOf(request.turn)!.ref;
    const expectedRef = workspace.latestRef ?? targetRef;
    let outcome: RestoreWorkspaceOutput;
    try {
      // Not stopped half-way by a cancellation of the workflow: a restore runs to its end.
      outcome = await CancellationScope.nonCancellable(() =>
        session.host.call((where) =>
          restoreWorkspace.executeWithOptions(
            { ...WORKSPACE_OPTIONS, ...where, summary: `rewind to turn ${request.turn} · files` },
            [{ workdir: session.state.workdir, targetRef, expectedRef, force: request.force }],
          ),
        ),
      );
    } catch (error) {
      workspace.settle(ticket, {
        error: `The files could not be put back: ${failureMessage(error)}`,
        type: ErrorType.RewindFailed,
      });
      return NOT_APPLIED;
    }
    if (outcome.kind === 'refused') {
      workspace.settle(ticket, {
        error: 'refused',
        type: ErrorType.RewindRefused,
        outsideChanges: outcome.outsideChanges,
      });
      return NOT_APPLIED;
    }
    restored = outcome;
  }

  session.rewindTo(checkpoint, request, restored?.currentRef);
  const result: RewindResult = {
    turn: request.turn,
    filesRestored: restored?.filesChanged ?? 0,
    notRestored: restored?.notRestored ?? [],
    ...(restored ? { previousSnapshot: restored.currentRef } : {}),
  };
  workspace.settle(ticket, { ok: result });
  return { applied: true, endsWithUser: checkpoint.endsWithUser };
}
