/**
 * Writing sub-agents' workspaces (issue 27): a child's worktree made from the parent's snapshot,
 * and the child's changes merged back into the parent's workdir.
 *
 * The merge is exactly-once like an edit: its plan (every change and conflict, the merged files'
 * content) is computed from snapshots, stored, and journaled under the parent's session and the
 * child's key BEFORE any file changes. A retry (a worker killed half-way, a lost completion) finds
 * the record and applies the same plan again, skipping what is already in place: it never merges
 * a second time against files the first attempt changed.
 */
import { basename, dirname, join } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors';
import {
  isWorktreeName,
  worktreeName,
  MERGE_MAX_CONFLICT_FILES,
  MERGE_MAX_HUNK_LINES,
  MERGE_MAX_HUNKS,
  MERGE_MAX_LISTED_PATHS,
  type CreateWorktreeInput,
  type CreateWorktreeOutput,
  type MergeConflict,
  type MergeConflictHunk,
  type MergeWorktreeInput,
  type MergeWorktreeOutput,
} from '../../shared/worktrees';
import { whileHeartbeating } from '../heartbeat';
import { getJson, putJson, type ContentStore } from '../../store/content-store';
import type { EffectJournal } from '../../store/effect-journal';
import { applyChanges } from '../../snapshots/apply-changes';
import { mergeSnapshots, type MergePlan } from '../../snapshots/merge-snapshots';
import { materializeSnapshot, untrackedPaths } from '../../snapshots/restore';
import { takeSnapshot } from '../../snapshots/snapshot';
import { diffTrees, type EntryChange } from '../../snapshots/tree';
import { sameLeaf } from '../../snapshots/tree-node';
import { unifiedDiff } from '../../snapshots/unified-diff';
import { realDirectory, realOrSame } from '../../workdir/real-directory';
import { removeTree } from '../../workdir/remove-tree';
import { Workdir } from '../../workdir/workdir';
import { checkForkWorkdir, type WorkspaceActivityDependencies } from './workspace-activities';

export interface WorktreeActivityDependencies extends Omit<WorkspaceActivityDependencies, 'journal'> {
  /** Where the merges' records go: the edits' journal. */
  journal: EffectJournal;
  /** Where worktrees are made: the first of `AGENT_WORKSPACE_ROOTS`, or the clones' default root. */
  cloneRoot: string;
}

/** A merge's plan as stored (content store) and named by its journal record. */
export interface StoredMergePlan extends MergePlan {
  v: 1;
  baseRef: string;
  /** The parent's workdir as found before the merge. */
  oursRef: string;
  /** The child's final snapshot. */
  childRef: string;
}

/** The journal record of a merge: `afterHash` names the stored plan (EffectRecord's fields, no new ones). */
export const MERGE_RECORD_MESSAGE = 'merge';
export const mergeCallKey = (key: string) => `merge:${key}`;

export function createWorktreeActivities(dependencies: WorktreeActivityDependencies) {
  const { store, journal, cloneRoot, hostId } = dependencies;
  const rules = {
    contentDir: dependencies.contentDir,
    workspaceRoots: dependencies.workspaceRoots,
    privateDirs: dependencies.privateDirs ?? [],
  };
  const signal = () => Context.current().cancellationSignal;
  return {
    /** A child's own workspace: `<clone root>/<name>` holding the snapshot `ref` (a retry completes a half-made one). */
    async createWorktree(input: CreateWorktreeInput): Promise<CreateWorktreeOutput> {
      if (!isWorktreeName(input.name))
        throw ApplicationFailure.nonRetryable(
          `worktree: ${JSON.stringify(input.name)} is not a directory name ([A-Za-z0-9._-]+)`,
          ErrorType.InvalidWorkdir,
        );
      const workdir = join(cloneRoot, input.name);
      await checkForkWorkdir(workdir, rules);
      try {
        await whileHeartbeating(() => materializeSnapshot(store, workdir, input.ref, { signal: signal() }));
      } catch (error) {
        throw signal().aborted ? error : finalIfUnfixable(error);
      }
      return { workdir: await checkedDirectory(workdir, rules), ...(hostId ? { host: hostId } : {}) };
    },

    /** The child's changes since `baseRef` merged into the parent's workdir, once whatever the retries. */
    async mergeWorktree(input: MergeWorktreeInput): Promise<MergeWorktreeOutput> {
      const workdir = await checkedDirectory(input.workdir, rules);
      const merged = await whileHeartbeating(() =>
        mergeInto(store, journal, { ...input, workdir }, { rules, signal: signal() }),
      );
      if (merged.conflictCount > 0 || !isWorktreeOf(await realOrSame(cloneRoot), input, workdir)) return merged;
      const removed = await whileHeartbeating(() => removeMerged(store, input.worktree, merged.childRef));
      return removed ? { ...merged, worktreeRemoved: true } : merged;
    },
  };
}

interface MergeContext {
  rules: Parameters<typeof checkForkWorkdir>[1];
  signal: AbortSignal;
}

/**
 * The merge: planned (or the journaled plan found), applied, the parent snapshotted. Until the
 * plan is journaled a cancellation stops it with nothing changed; from then on it runs to the end,
 * as a cancellation half-way would leave the parent's files half-merged.
 */
async function mergeInto(
  store: ContentStore,
  journal: EffectJournal,
  input: MergeWorktreeInput,
  context: MergeContext,
): Promise<MergeWorktreeOutput> {
  const { plan, fresh } = await mergePlanOf(store, journal, input, context);
  // A plan made just now was made from the parent's files as they are: nothing of it is in place yet.
  const before = fresh ? plan.oursRef : (await takeSnapshot(store, input.workdir, plan.oursRef)).ref;
  const pending = await notInPlace(store, plan, before);
  await Workdir.using(input.workdir, (workdir) => applyChanges(store, workdir, pending));
  const after = await takeSnapshot(store, input.workdir, input.parentRef ?? plan.oursRef);
  // What applying could not put in place (a directory of ignored files where the child has a file) is not merged.
  const left = new Set((await notInPlace(store, plan, after.ref)).map(({ path }) => path));
  const conflicts = [
    ...plan.conflicts,
    ...[...left].map((path): MergeConflict => ({ path, why: 'not_text', hunks: [] })),
  ];
  const outcome = {
    merged: plan.merged.filter((path) => !left.has(path)),
    conflicts: conflicts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  };
  const patchRef =
    conflicts.length > 0 ? await store.put(await unifiedDiff(store, plan.baseRef, plan.childRef)) : undefined;
  return {
    ...reportOf(outcome),
    snapshot: { ref: after.ref, filesChanged: after.changes.length },
    childRef: plan.childRef,
    ...(patchRef ? { patchRef } : {}),
  };
}

/**
 * The merge's plan: the one journaled by an earlier attempt, or a new one, stored and journaled
 * before it is returned (so before any file changes). Once journaled, the child's worktree is not
 * read again: what it holds by then is not merged.
 */
async function mergePlanOf(
  store: ContentStore,
  journal: EffectJournal,
  input: MergeWorktreeInput,
  { rules, signal }: MergeContext,
): Promise<{ plan: StoredMergePlan; fresh: boolean }> {
  const callKey = mergeCallKey(input.key);
  const recorded = await journal.find(input.sessionId, callKey);
  if (recorded) return { plan: await getJson<StoredMergePlan>(store, recorded.afterHash), fresh: false };
  const worktree = await checkedDirectory(input.worktree, rules);
  // Against the child's last snapshot, the worktree's unchanged files cost an lstat, not a read.
  const theirs = await takeSnapshot(store, worktree, input.childRef ?? input.baseRef, { signal });
  const ours = await takeSnapshot(store, input.workdir, input.parentRef, { signal });
  const merge = await mergeSnapshots(store, {
    baseRef: input.baseRef,
    oursRef: ours.ref,
    theirsRef: theirs.ref,
    signal,
  });
  const plan: StoredMergePlan = { v: 1, baseRef: input.baseRef, oursRef: ours.ref, childRef: theirs.ref, ...merge };
  const planRef = await putJson(store, plan);
  signal.throwIfAborted();
  await journal.record(input.sessionId, callKey, {
    path: input.key,
    beforeHash: ours.ref,
    afterHash: planRef,
    message: MERGE_RECORD_MESSAGE,
  });
  return { plan, fresh: true };
}

/**
 * The plan's changes whose path does not hold its merged entry in snapshot `ref` of the parent's
 * workdir, each from what the path holds there: the first attempt finds the whole plan pending; a
 * retry, what a killed attempt did not do (a removal already done is not attempted again).
 */
async function notInPlace(store: ContentStore, plan: StoredMergePlan, ref: string): Promise<EntryChange[]> {
  if (plan.changes.length === 0) return [];
  const changedSince = new Map((await diffTrees(store, plan.oursRef, ref)).map(({ path, to }) => [path, to]));
  const pending: EntryChange[] = [];
  for (const { path, from, to } of plan.changes) {
    const current = changedSince.has(path) ? changedSince.get(path) : from;
    if (!sameLeaf(current, to)) pending.push({ path, from: current, to });
  }
  return pending;
}

/** What the output lists of the plan: counts in full, paths and conflicts cut to what history should hold. */
export function reportOf(
  plan: Pick<MergePlan, 'merged' | 'conflicts'>,
): Pick<MergeWorktreeOutput, 'merged' | 'filesMerged' | 'conflicts' | 'conflictCount'> {
  return {
    merged: plan.merged.slice(0, MERGE_MAX_LISTED_PATHS),
    filesMerged: plan.merged.length,
    conflicts: plan.conflicts.slice(0, MERGE_MAX_CONFLICT_FILES).map(cutConflict),
    conflictCount: plan.conflicts.length,
  };
}

function cutConflict(conflict: MergeConflict): MergeConflict {
  const hunks = conflict.hunks.slice(0, MERGE_MAX_HUNKS).map(cutHunk);
  return { ...conflict, hunks, ...(conflict.hunks.length > hunks.length ? { hunkCount: conflict.hunks.length } : {}) };
}

function cutHunk(hunk: MergeConflictHunk): MergeConflictHunk {
  const { base, ours, theirs } = hunk;
  const more = {
    base: Math.max(0, base.length - MERGE_MAX_HUNK_LINES),
    ours: Math.max(0, ours.length - MERGE_MAX_HUNK_LINES),
    theirs: Math.max(0, theirs.length - MERGE_MAX_HUNK_LINES),
  };
  if (more.base + more.ours + more.theirs === 0) return hunk;
  const cut = (lines: string[]) => lines.slice(0, MERGE_MAX_HUNK_LINES);
  return { line: hunk.line, base: cut(base), ours: cut(ours), theirs: cut(theirs), more };
}

/**
 * Whether the input's worktree is the one this worker made for the child it names:
 * `<clone root>/<worktreeName(child id)>`, not the parent's workdir. Nothing else is ever removed.
 */
function isWorktreeOf(cloneRoot: string, { worktree, key }: MergeWorktreeInput, workdir: string): boolean {
  return dirname(worktree) === cloneRoot && basename(worktree) === worktreeName(key) && worktree !== workdir;
}

/**
 * A worktree merged with no conflict removed, unless it holds files its snapshot does not record
 * (what its ignore rules leave out, `node_modules/`, `.env`: never merged, so kept where they
 * are). Best effort: whatever goes wrong, the merge stands and the worktree stays.
 */
async function removeMerged(store: ContentStore, worktree: string, childRef: string): Promise<boolean> {
  try {
    if ((await untrackedPaths(store, worktree, childRef)).length > 0) return false;
    return await removeTree(worktree);
  } catch (error) {
    // Gone already: an earlier attempt of this merge removed it.
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** The real path of a worktree or workdir, checked like a fork's workdir; anything else is final. */
async function checkedDirectory(path: string, rules: Parameters<typeof checkForkWorkdir>[1]): Promise<string> {
  const real = await realDirectory(path);
  if (!('path' in real))
    throw ApplicationFailure.nonRetryable(`workdir: ${path} ${real.problem}`, ErrorType.InvalidWorkdir);
  await checkForkWorkdir(real.path, rules);
  return real.path;
}

/** A directory holding other files, or one that cannot be written: retrying changes nothing. */
function finalIfUnfixable(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined || code === 'EACCES' || code === 'EPERM' || code === 'ENOTDIR' || code === 'EROFS')
    return ApplicationFailure.nonRetryable((error as Error).message, ErrorType.InvalidWorkdir);
  return error;
}
