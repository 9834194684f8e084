/**
 * `repo` sessions (input `repo: { url, ref? }`): what the workflow and the repository activities
 * exchange, and the branch the result names. Plain JSON, like all activity I/O.
 */

import { branchForSession } from './branch-name';

/**
 * The branch a `repo` session's changes are committed to: `durable-agent/<session id>`, with what
 * git refuses in the id replaced and a hash added (branch-name.ts).
 */
export function sessionBranch(sessionId: string): string {
  return branchForSession(sessionId);
}

export interface CloneRepositoryInput {
  /** The clone's directory name, new for every clone of the session (its first run, each move). */
  name: string;
  /** `durable-agent/<session id>` (made safe for git: `sessionBranch`). */
  branch: string;
  url: string;
  /** A branch, tag or commit of the remote; unset: its default branch. */
  ref?: string;
  /**
   * Moving a session to this host (its host was lost): check out `commit` (the session's base),
   * then put the files back as in `snapshotRef`, the session's last snapshot, over `baseRef`, its first.
   */
  move?: { commit: string; snapshotRef?: string; baseRef?: string; lostHost: string };
}

export interface CloneRepositoryOutput {
  /** The clone: `<workspace root>/<name>` on `host`. */
  workdir: string;
  /** The commit the session started from. */
  commit: string;
  branch: string;
  /** The worker's `AGENT_HOST_ID` (none: the shared queue serves the workspace). */
  host?: string;
}

export interface CommitBranchInput {
  workdir: string;
  branch: string;
  message: string;
  /**
   * The session's first snapshot (its files as cloned, the base commit's) and its last: the
   * commit is the base commit plus the changes between the two, the same two the result's
   * `filesChanged` compares. Absent in activities scheduled by workflow code from before they
   * were passed: the commit is then the workdir's files now, snapshotted over the base commit.
   */
  fromRef?: string;
  toRef?: string;
}

/** A change of the session's that the branch does not hold, and why. */
export interface NotCommitted {
  path: string;
  reason: string;
}

/** The result's `branch`: where a `repo` session's changes are. */
export interface BranchResult {
  name: string;
  /** The branch's head: the session's commit, or the base commit when nothing changed. */
  commit: string;
  /** Whether the remote has the branch now. */
  pushed: boolean;
  /** Why it was not pushed (git's message). */
  pushError?: string;
  /**
   * Changes in `filesChanged` that the commit does not hold: FIFOs, sockets and devices (git
   * holds none), paths with a `.git` component, files over the snapshot size limit that changed
   * after the session's last snapshot. Absent when there are none.
   */
  notCommitted?: NotCommitted[];
}

/**
 * The directory name of a session's clone: its id made safe for a path, its first run (a workflow
 * id used again gets a clone of its own) and the move it is for.
 */
export function cloneName(sessionId: string, firstRunId: string, move: number): string {
  const safe = sessionId
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 100);
  return `${safe}-${firstRunId.slice(0, 8)}${move > 0 ? `-moved-${move}` : ''}`;
}
