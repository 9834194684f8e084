/**
 * The workspace activities: a snapshot after a turn, the check and restore of a rewind, the
 * files of a fork, and the changes of a session. Each is safe to retry after a crash: snapshots
 * are content-addressed (writing one twice stores nothing new), a restore or materialization
 * counts files already at their target as done, and checks and diffs only read.
 */
import { resolve } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors';
import type {
  DiffSnapshotsInput,
  FileChange,
  FileChangeStat,
  MaterializeSnapshotInput,
  MaterializeSnapshotOutput,
  RestoreWorkspaceInput,
  RestoreWorkspaceOutput,
  SnapshotWorkspaceInput,
  SnapshotWorkspaceOutput,
  TakenSnapshot,
} from '../../shared/workspace';
import { whileHeartbeating } from '../heartbeat';
import { realOrSame } from '../../workdir/real-directory';
import { workdirProblem } from '../session/workdir-check';
import type { ContentStore } from '../../store/content-store';
import type { EffectJournal } from '../../store/effect-journal';
import { materializeSnapshot, restoreSnapshot } from '../../snapshots/restore';
import { takeSnapshot } from '../../snapshots/snapshot';
import { keepStartSnapshot, keptStartSnapshot } from '../../snapshots/start-snapshots';
import { compareSnapshots } from '../../snapshots/tree';
import { diffStat } from '../../snapshots/unified-diff';

export interface WorkspaceActivityDependencies {
  store: ContentStore;
  /** Keeps each session's start snapshot (start-snapshots.ts); without one, every start is snapshotted as found. */
  journal?: EffectJournal;
  /** The content store's directory and `AGENT_WORKSPACE_ROOTS`: a fork's new workdir is checked like any workdir. */
  contentDir?: string;
  workspaceRoots: readonly string[];
  /** Directories of the worker's own that are never a workdir. */
  privateDirs?: readonly string[];
  /** This worker's host (`AGENT_HOST_ID`): a fork's files are on it. */
  hostId?: string;
}

/** What changed in the working tree since `expectedRef` and is not already as in `targetRef`: changes made beside the session. */
export async function outsideChanges(
  store: ContentStore,
  workdir: string,
  expectedRef: string,
  targetRef: string,
  signal?: AbortSignal,
): Promise<FileChange[]> {
  const current = await takeSnapshot(store, workdir, expectedRef, { signal });
  if (current.changes.length === 0) return [];
  const atTarget = new Set(
    (await compareSnapshots(store, current.ref, targetRef, signal)).map((change) => change.path),
  );
  return current.changes.filter((change) => atTarget.has(change.path));
}

/**
 * The workspace as a call (or the stop hooks) left it, over the session's last snapshot. Never
 * throws: the call's effects have happened, and a failure here would retry (so repeat) the call;
 * undefined tells the workflow to take the snapshot itself.
 */
export async function snapshotOver(
  store: ContentStore,
  workdir: string,
  previousRef: string,
  signal?: AbortSignal,
): Promise<TakenSnapshot | undefined> {
  try {
    const snapshot = await takeSnapshot(store, workdir, previousRef, { signal });
    return { ref: snapshot.ref, filesChanged: snapshot.changes.length };
  } catch {
    return undefined;
  }
}

/** A fork's workdir must be one a session may have: no system directory, clear of the store and the private dirs, inside the roots. */
export async function checkForkWorkdir(
  workdir: string,
  {
    contentDir,
    workspaceRoots,
    privateDirs,
  }: Pick<WorkspaceActivityDependencies, 'contentDir' | 'workspaceRoots'> & { privateDirs: readonly string[] },
): Promise<void> {
  const fileStore = contentDir ? { contentDir: await realOrSame(contentDir) } : {};
  const problem = workdirProblem(await realOrSame(workdir), {
    ...fileStore,
    roots: await Promise.all(workspaceRoots.map(realOrSame)),
    privateDirs: await Promise.all(privateDirs.map(realOrSame)),
  });
  if (problem) throw ApplicationFailure.nonRetryable(`workdir: ${problem}`, ErrorType.InvalidWorkdir);
}

export function createWorkspaceActivities({
  store,
  journal,
  contentDir,
  workspaceRoots,
  privateDirs = [],
  hostId,
}: WorkspaceActivityDependencies) {
  const signal = () => Context.current().cancellationSignal;
  /** The run this activity serves: the workflow tells a reset run by it (reset.ts). */
  const runId = () => Context.current().info.workflowExecution?.runId;
  return {
    /**
     * The working tree now, incremental over the snapshot before it. Only the reference and counts
     * enter history. A start snapshot (`startKey`) already kept is returned as it was taken.
     */
    async snapshotWorkspace(input: SnapshotWorkspaceInput): Promise<SnapshotWorkspaceOutput> {
      const kept = input.startKey && journal ? await keptStartSnapshot(journal, input.startKey) : undefined;
      if (kept)
        return { ref: kept.ref, files: kept.files, filesChanged: 0, ...(kept.runId ? { runId: kept.runId } : {}) };
      const snapshot = await whileHeartbeating(() =>
        takeSnapshot(store, input.workdir, input.previousRef, { signal: signal() }),
      );
      const taken = { ref: snapshot.ref, files: snapshot.files, runId: runId() };
      if (input.startKey && journal) await keepStartSnapshot(journal, input.startKey, taken);
      return { ...taken, filesChanged: snapshot.changes.length };
    },

    /** Before a rewind: the files someone changed beside the session since its last snapshot. */
    async checkWorkspace(input: RestoreWorkspaceInput): Promise<FileChange[]> {
      return whileHeartbeating(() =>
        outsideChanges(store, input.workdir, input.expectedRef, input.targetRef, signal()),
      );
    },

    /** Puts the files back as in `targetRef`, unless someone changed files beside the session (and no `force`). */
    async restoreWorkspace(input: RestoreWorkspaceInput): Promise<RestoreWorkspaceOutput> {
      const outcome = await whileHeartbeating(() =>
        restoreSnapshot(store, input.workdir, {
          targetRef: input.targetRef,
          expectedRef: input.expectedRef,
          force: input.force,
        }),
      );
      return outcome.kind === 'restored' ? { ...outcome, runId: runId() } : outcome;
    },

    /** A fork's files, written into its new, empty workdir. */
    async materializeSnapshot(input: MaterializeSnapshotInput): Promise<MaterializeSnapshotOutput> {
      const workdir = resolve(input.workdir);
      await checkForkWorkdir(workdir, { contentDir, workspaceRoots, privateDirs });
      try {
        const written = await whileHeartbeating(() => materializeSnapshot(store, workdir, input.ref));
        return hostId ? { ...written, host: hostId } : written;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A directory holding other files, or one that cannot be written: retrying changes nothing.
        if (code === undefined || code === 'EACCES' || code === 'EPERM' || code === 'ENOTDIR' || code === 'EROFS') {
          throw ApplicationFailure.nonRetryable((error as Error).message, ErrorType.InvalidWorkdir);
        }
        throw error;
      }
    },

    /** The session's changes with their line counts (the result's `filesChanged`, `durable-agent run`'s diffstat). */
    async diffSnapshots(input: DiffSnapshotsInput): Promise<FileChangeStat[]> {
      return whileHeartbeating(() => diffStat(store, input.fromRef, input.toRef));
    },
  };
}
