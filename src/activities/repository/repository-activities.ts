/**
 * `repo` sessions: the clone a session works in, its move to another host, and its branch.
 *
 * Beside the session's workdir `<root>/<id>` (a clone of its own, for the session's git commands)
 * lies our git directory `<root>/<id>.git`, which the session never sees: the branch
 * `durable-agent/<id>` is committed and pushed from there. Each activity is safe to retry: the
 * clone is built in a temporary directory and renamed into place last; the commit is made from
 * the tree as found (a retry finds nothing new to commit); pushing the same commit twice is a no-op.
 */
import { access, mkdir, realpath, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors';
import { type BranchResult, type CloneRepositoryInput, type CloneRepositoryOutput, type CommitBranchInput, sessionBranch } from '../../shared/repository';
import { whileHeartbeating } from '../heartbeat';
import type { ContentStore } from '../store/content-store';
import { restoreSnapshot } from '../workspace/restore';
import { git, GitError } from './git';

export interface RepositoryActivityDependencies {
  store: ContentStore;
  /** Where clones go: the first of `AGENT_WORKSPACE_ROOTS`, else `~/.durable-agent/workspaces`. */
  cloneRoot: string;
  /** This worker's host (`AGENT_HOST_ID`). */
  hostId?: string;
}

/** The clone root when `AGENT_WORKSPACE_ROOTS` names none. */
export const DEFAULT_CLONE_ROOT = join(homedir(), '.durable-agent', 'workspaces');

/** Our git directory for a session's workdir. */
export const gitDirOf = (workdir: string) => `${workdir}.git`;

const exists = (path: string) => access(path).then(() => true, () => false);

export function createRepositoryActivities({ store, cloneRoot, hostId }: RepositoryActivityDependencies) {
  return {
    /**
     * Clones the session's repository into `<root>/<session id>` on the branch
     * `durable-agent/<session id>`. When the session moves here from a lost host, the branch
     * starts at the session's base commit and the files are put back as in its last snapshot.
     */
    async cloneRepository(input: CloneRepositoryInput): Promise<CloneRepositoryOutput> {
      if (input.move && hostId === input.move.lostHost) {
        // Only a host whose host queue is gone but whose shared queue still polls gets here.
        throw ApplicationFailure.retryable(`this worker is on ${hostId}, the host the session moves away from`, ErrorType.WrongHost);
      }
      const name = input.sessionId.replace(/[^A-Za-z0-9._-]/g, '_');
      const workdir = join(cloneRoot, name);
      const gitDir = gitDirOf(workdir);
      const branch = sessionBranch(input.sessionId);
      return whileHeartbeating(async () => {
        if (!(await exists(workdir))) await cloneInto(input, { workdir, gitDir, branch });
        const commit = await git(['rev-parse', `refs/heads/${branch}`], { gitDir });
        const move = input.move;
        if (move?.snapshotRef) {
          // A fresh clone at the base commit holds the first snapshot's files: the last snapshot
          // goes over it (force: what a crashed attempt of this restore left is overwritten).
          await restoreSnapshot(store, workdir, { targetRef: move.snapshotRef, expectedRef: move.baseRef ?? move.snapshotRef, force: true });
        }
        return { workdir: await realpath(workdir), commit, branch, ...(hostId ? { host: hostId } : {}) };
      });
    },

    /** Commits the workdir's files (what `.gitignore` keeps out stays out) to the branch, and pushes it. */
    async commitBranch(input: CommitBranchInput): Promise<BranchResult> {
      const gitDir = gitDirOf(input.workdir);
      const where = { gitDir, workTree: input.workdir };
      return whileHeartbeating(async () => {
        await git(['add', '--all'], where);
        const tree = await git(['write-tree'], where);
        let commit = await git(['rev-parse', `refs/heads/${input.branch}`], { gitDir });
        if (tree !== (await git(['rev-parse', `${commit}^{tree}`], { gitDir }))) {
          // Plumbing, not `git commit`: no hooks, no editor, no config of the session's involved.
          commit = await git(['commit-tree', tree, '-p', commit, '-m', input.message], { gitDir });
          await git(['update-ref', `refs/heads/${input.branch}`, commit], { gitDir });
        }
        try {
          await git(['push', '--quiet', 'origin', `refs/heads/${input.branch}:refs/heads/${input.branch}`], { gitDir });
          return { name: input.branch, commit, pushed: true };
        } catch (error) {
          return { name: input.branch, commit, pushed: false, pushError: (error as Error).message };
        }
      });
    },
  };
}

async function cloneInto(input: CloneRepositoryInput, { workdir, gitDir, branch }: { workdir: string; gitDir: string; branch: string }): Promise<void> {
  const temporary = `${workdir}.agent-clone`;
  await mkdir(join(workdir, '..'), { recursive: true });
  // What a crashed attempt left goes first.
  await Promise.all([rm(gitDir, { recursive: true, force: true }), rm(temporary, { recursive: true, force: true })]);
  try {
    await git(['clone', '--bare', '--quiet', '--', input.url, gitDir]);
  } catch (error) {
    throw ApplicationFailure.create({ message: `repo.url: ${input.url} could not be cloned: ${(error as Error).message}`, type: ErrorType.InvalidRepository });
  }
  const commit = input.move?.commit ?? (await baseCommit(gitDir, input));
  await git(['config', 'core.bare', 'false'], { gitDir });
  await git(['update-ref', `refs/heads/${branch}`, commit], { gitDir });
  await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { gitDir });
  // The session's own clone, for its git commands; its remote is the repository's.
  await git(['clone', '--quiet', '--no-hardlinks', '--branch', branch, '--', gitDir, temporary]);
  await git(['remote', 'set-url', 'origin', input.url], { cwd: temporary });
  await git(['read-tree', commit], { gitDir, workTree: temporary });
  await rename(temporary, workdir);
}

async function baseCommit(gitDir: string, input: CloneRepositoryInput): Promise<string> {
  const ref = input.ref ?? 'HEAD';
  try {
    return await git(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`], { gitDir });
  } catch (error) {
    const what = input.ref ? `repo.ref: ${input.url} has no branch, tag or commit named ${input.ref}` : `repo.url: ${input.url} has no commits`;
    throw ApplicationFailure.nonRetryable(`${what} (${error instanceof GitError ? error.stderr.trim() : String(error)})`, ErrorType.InvalidRepository);
  }
}
