/**
 * Writing sub-agents (issue 27): a child's own workspace, made from the parent's snapshot, and the
 * three-way merge of its changes back into the parent's workdir. What the workflow and the
 * worktree activities exchange: plain JSON, and `worktreeName`, which workflow code calls.
 */

export interface CreateWorktreeInput {
  /** One directory name made by the workflow (`worktreeName`): `[A-Za-z0-9._-]+`; anything else is refused. */
  name: string;
  /** The parent's snapshot the worktree starts as (the fork point). */
  ref: string;
}

export interface CreateWorktreeOutput {
  /** `<workspace root>/<name>`, its real path, on `host`. */
  workdir: string;
  /** The worker's `AGENT_HOST_ID` (none: the shared queue serves the workspace). */
  host?: string;
}

export interface MergeWorktreeInput {
  /** The parent's workflow id: the journal's session. */
  sessionId: string;
  /** The journal key, unique per child: the child's workflow id. */
  key: string;
  /** The parent's workdir. */
  workdir: string;
  /** The parent's latest snapshot (the base of the incremental snapshots). */
  parentRef?: string;
  /** The child's workdir. */
  worktree: string;
  /** The fork point: the parent's snapshot the worktree was made from. */
  baseRef: string;
  /** The child's last snapshot (its result's `snapshotRef`): the worktree's files it recorded are not read again. */
  childRef?: string;
}

export interface MergeConflictHunk {
  /** 1-based, in the parent's file (as it is after the merge, where the parent's lines stayed). */
  line: number;
  /** The lines of each side (without their line ends); at most MERGE_MAX_HUNK_LINES each. */
  base: string[];
  ours: string[];
  theirs: string[];
  /** Lines left out of each side (present only when a side was cut). */
  more?: { base: number; ours: number; theirs: number };
}

export interface MergeConflict {
  path: string;
  /**
   * `both_changed`: overlapping hunks of a text file; `changed_and_deleted`: one side deleted
   * what the other changed; `not_text`: a binary, big or special file, a symlink or a change of
   * kind, changed differently on both sides. The parent's version stays in every case.
   */
  why: 'both_changed' | 'changed_and_deleted' | 'not_text';
  /**
   * The conflicting hunks of a `both_changed` file, at most MERGE_MAX_HUNKS; empty otherwise, and
   * when the line merge gave up (too many changes to diff in time: the parent's file stays whole).
   */
  hunks: MergeConflictHunk[];
  /** The file's hunks in all, present only when `hunks` was cut. */
  hunkCount?: number;
}

export interface MergeWorktreeOutput {
  /** Paths the merge changed in the parent's workdir, sorted (at most MERGE_MAX_LISTED_PATHS). */
  merged: string[];
  /** How many in all. */
  filesMerged: number;
  /** At most MERGE_MAX_CONFLICT_FILES files, MERGE_MAX_HUNKS hunks each, MERGE_MAX_HUNK_LINES lines a side. */
  conflicts: MergeConflict[];
  /** Files with a conflict, in all. */
  conflictCount: number;
  /** The parent's workdir after the merge, over `parentRef`. */
  snapshot: { ref: string; filesChanged: number };
  /** The child's final snapshot. */
  childRef: string;
  /** With conflicts: a unified diff (baseRef → childRef) of the child's changes, in the content store. */
  patchRef?: string;
  /** Merged with no conflict, the worktree was removed (it holds nothing the parent's workdir does not). */
  worktreeRemoved?: boolean;
}

export const MERGE_MAX_LISTED_PATHS = 200;
export const MERGE_MAX_CONFLICT_FILES = 50;
export const MERGE_MAX_HUNKS = 10;
export const MERGE_MAX_HUNK_LINES = 30;

/** What a worktree's name may be: one path component, no `.` or `..`. */
export function isWorktreeName(name: unknown): name is string {
  return (
    typeof name === 'string' && name.length <= 200 && /^[A-Za-z0-9._-]+$/.test(name) && name !== '.' && name !== '..'
  );
}

/** Characters of the child's id kept in the name, so a person can tell whose worktree it is. */
const NAME_TAIL_CHARS = 40;

/**
 * The directory name of a child's worktree: `worktree-<hash>-<tail of the id>`. Pure and
 * deterministic (workflow code calls it, so no node:crypto): FNV-1a of the id and of the id
 * reversed (64 bits in all) tell distinct ids apart; the tail keeps only characters safe in a path.
 */
export function worktreeName(childWorkflowId: string): string {
  const hash = fnv1a(childWorkflowId) + fnv1a([...childWorkflowId].reverse().join(''));
  const tail = childWorkflowId.replace(/[^A-Za-z0-9._-]/g, '_').slice(-NAME_TAIL_CHARS);
  return tail ? `worktree-${hash}-${tail}` : `worktree-${hash}`;
}

/** 32-bit FNV-1a over the string's UTF-16 code units: 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** A writing sub-agent as `state.worktrees` lists it: working, merged (with or without conflicts), or not merged. */
export interface WorktreeChildView {
  toolUseId: string;
  workflowId: string;
  description: string;
  worktree: string;
  status: 'working' | 'merged' | 'conflicts' | 'not_merged';
  filesMerged?: number;
  /** Paths whose conflicting hunks stayed as the parent had them. */
  conflicts?: string[];
  /** Why nothing was merged. */
  error?: string;
  /** Merged with no conflict: its worktree is gone. */
  worktreeRemoved?: boolean;
}

/** The writing sub-agents `state` lists: the most recent ones. */
export const WORKTREES_SHOWN = 50;
