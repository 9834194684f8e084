/**
 * Writing sub-agents (issue 27): an Agent call with `isolation: "worktree"` (or of a type with
 * `isolation: worktree`) runs its child in a worktree of its own, made on the parent's host from
 * the parent's files as they are when the child starts (the fork point), and merges what the
 * child changed back into the parent's workdir when it ends: a three-way merge against the fork
 * point, as one activity of the parent's turn (`merge Agent: <description> · N files`), journaled
 * so that a retry after a crash applies the same merge once. Children of one response merge one
 * at a time in the order their calls started (Agent calls need no approval: the order of their
 * tool_uses), whatever order they end in; an unfinished child (interrupted, cancelled, stopped at
 * a limit) merges nothing.
 */
import { CancellationScope, patched, workflowInfo } from '@temporalio/workflow';
import type { AgentResult } from '../../shared/contract';
import { type MergeWorktreeOutput, type WorktreeChildView, worktreeName } from '../../shared/worktrees';
import type { SnapshotWorkspaceOutput } from '../../shared/workspace';
import type { AgentSession } from '../session/agent-session';
import { createWorktree, mergeWorktree, snapshotWorkspace, WORKSPACE_OPTIONS } from '../activity-options';
import { WORKTREE_SHARED_FORK_PATCH } from '../core/features';
import { failureMessage } from '../core/failures';
import { mergeReport, notMergedReport, type WorktreeView } from '../core/worktree-report';

export type WorktreeSession = Pick<AgentSession, 'host' | 'id' | 'note' | 'state' | 'view' | 'workspace'>;

export interface Worktree extends WorktreeView {
  /** The parent's snapshot the worktree was made from: the merge's base. */
  baseRef: string;
  toolUseId: string;
  description: string;
}

/** Merges of each session in flight: the next waits for the one before (a workflow-local chain, replayed alike). */
const lastMerge = new WeakMap<WorktreeSession, Promise<void>>();

/**
 * A place in the session's merge order, taken when the call starts (before anything is awaited,
 * so calls take places in the order they start); `done` lets the next one merge.
 */
export function mergeTurn(session: WorktreeSession): { before: Promise<void>; done: () => void } {
  const before = lastMerge.get(session) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  lastMerge.set(
    session,
    before.then(() => mine),
  );
  return { before, done };
}

/** The parent's files now (calls of this turn may have changed them since its last snapshot), copied into the child's worktree. */
export async function forkWorktree(
  session: WorktreeSession,
  childWorkflowId: string,
  call: { id: string; description: string },
): Promise<Worktree | { error: string }> {
  const { description } = call;
  const previousRef = session.workspace.latestRef;
  if (!previousRef)
    return {
      error:
        'isolation "worktree" needs the session\'s durable workspace (a snapshot of its files to fork from), which it does not have yet: call again without isolation.',
    };
  try {
    const base = await forkPoint(session, previousRef, description);
    const made = await session.host.call((where) =>
      createWorktree.executeWithOptions({ ...WORKSPACE_OPTIONS, ...where, summary: `worktree Agent: ${description}` }, [
        { name: worktreeName(childWorkflowId), ref: base.ref },
      ]),
    );
    const tree = {
      workflowId: childWorkflowId,
      toolUseId: call.id,
      description,
      worktree: made.workdir,
      ...(made.host ? { host: made.host } : {}),
      baseRef: base.ref,
    };
    showChild(session, tree, { status: 'working' });
    return tree;
  } catch (error) {
    return { error: `The sub-agent's worktree could not be made: ${failureMessage(error)}` };
  }
}

/** The fork-point snapshot of each session being taken now, and the activation that asked for it (workflow-local, replayed alike). */
const forking = new WeakMap<WorktreeSession, { taken: Promise<SnapshotWorkspaceOutput>; activation: number }>();

/**
 * The parent's files now, as a snapshot: the one asked for by another writing sub-agent that
 * started in the same workflow activation (the calls of one response start together), or a new
 * one. Only the same activation: the activity runs once it ends, after everything the workflow
 * knows of has happened (a hook's writes, a merge); a call that starts in a later one (its
 * PreToolUse hook came back, a slot freed by a merge) may see files that snapshot misses.
 * Sessions recorded before the sharing take one per call.
 */
function forkPoint(
  session: WorktreeSession,
  previousRef: string,
  description: string,
): Promise<SnapshotWorkspaceOutput> {
  const shared = patched(WORKTREE_SHARED_FORK_PATCH);
  // Deterministic: the history length the activation was given, the same on replay.
  const activation = workflowInfo().historyLength;
  const taking = shared ? forking.get(session) : undefined;
  if (taking?.activation === activation) return taking.taken;
  const taken = session.host.call((where) =>
    snapshotWorkspace.executeWithOptions(
      { ...WORKSPACE_OPTIONS, ...where, summary: `worktree Agent: ${description} · fork point` },
      [{ workdir: session.state.workdir, previousRef }],
    ),
  );
  if (shared) {
    forking.set(session, { taken, activation });
    const over = () => void (forking.get(session)?.taken === taken && forking.delete(session));
    taken.then(over, over);
  }
  return taken;
}

/**
 * After the child ended: its merge, in its turn (not stopped half-way by an interrupt that comes
 * meanwhile: a finished child's work is merged), and what the parent's model reads of it.
 */
export async function mergeBack(
  session: WorktreeSession,
  order: { before: Promise<void> },
  call: { id: string; description: string },
  tree: Worktree,
  result: AgentResult,
): Promise<{ text: string; merge?: MergeWorktreeOutput }> {
  if (result.reason !== 'completed') {
    const why = `the sub-agent stopped before it finished: ${result.reason}`;
    noteMerge(session, call.id, tree, { error: why });
    return { text: notMergedReport(why, tree) };
  }
  return CancellationScope.nonCancellable(async () => {
    await order.before;
    try {
      const merge = await runMerge(session, call.description, tree, result);
      // The parent's files after the merge: the base of its next merge and of the turn's snapshot.
      session.workspace.recordSnapshot(session.state.turnCount, merge.snapshot);
      noteMerge(session, call.id, tree, { merge });
      return { text: mergeReport(merge, tree), merge };
    } catch (error) {
      const why = `the merge failed: ${failureMessage(error)}`;
      noteMerge(session, call.id, tree, { error: why });
      return { text: notMergedReport(why, tree) };
    }
  });
}

function runMerge(
  session: WorktreeSession,
  description: string,
  tree: Worktree,
  { filesChanged: changed, snapshotRef: childRef }: AgentResult,
): Promise<MergeWorktreeOutput> {
  const parentRef = session.workspace.latestRef;
  const filesChanged = changed?.length;
  const files = filesChanged === undefined ? '' : ` · ${filesChanged} file${filesChanged === 1 ? '' : 's'}`;
  return session.host.call((where) =>
    mergeWorktree.executeWithOptions(
      { ...WORKSPACE_OPTIONS, ...where, summary: `merge Agent: ${description}${files}` },
      [
        {
          sessionId: session.id,
          key: tree.workflowId,
          workdir: session.state.workdir,
          ...(parentRef ? { parentRef } : {}),
          worktree: tree.worktree,
          baseRef: tree.baseRef,
          ...(childRef ? { childRef } : {}),
        },
      ],
    ),
  );
}

function noteMerge(
  session: WorktreeSession,
  toolUseId: string,
  tree: Worktree,
  outcome: { merge: MergeWorktreeOutput } | { error: string },
): void {
  const merge = 'merge' in outcome ? outcome.merge : undefined;
  const conflicts = merge?.conflicts.map((conflict) => conflict.path) ?? [];
  showChild(
    session,
    tree,
    merge
      ? {
          status: merge.conflictCount ? 'conflicts' : 'merged',
          filesMerged: merge.filesMerged,
          conflicts,
          ...(merge.worktreeRemoved ? { worktreeRemoved: true } : {}),
        }
      : { status: 'not_merged', error: 'error' in outcome ? outcome.error : '' },
  );
  session.note({
    type: 'worktree_merge',
    toolUseId,
    workflowId: tree.workflowId,
    worktree: tree.worktree,
    filesMerged: merge?.filesMerged ?? 0,
    conflicts,
    ...(merge?.worktreeRemoved ? { worktreeRemoved: true } : {}),
    ...('error' in outcome ? { error: outcome.error } : {}),
  });
}

function showChild(
  session: WorktreeSession,
  tree: Worktree,
  outcome: Pick<WorktreeChildView, 'status' | 'filesMerged' | 'conflicts' | 'error' | 'worktreeRemoved'>,
): void {
  session.view.showWorktree({
    toolUseId: tree.toolUseId,
    workflowId: tree.workflowId,
    description: tree.description,
    worktree: tree.worktree,
    ...outcome,
  });
}
