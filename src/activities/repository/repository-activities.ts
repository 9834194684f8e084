/**
 * `repo` sessions: the clone a session works in, its move to another host, and its branch.
 *
 * The session works in `<clone root>/<name>`, a clone of its own (for its git commands). Our git
 * directory `~/.durable-agent/git/<name>.git`, which no session sees, holds the branch
 * `durable-agent/<id>`, committed and pushed from there. `name` is new for every clone (the
 * session id, its first run, the move), so no two clones ever share a directory. Each activity is
 * safe to retry: a clone is built under temporary names of its attempt and renamed into place
 * last; the commit is made from the session's snapshots (commit-snapshots.ts: a retry finds
 * nothing new to commit) and moves the branch only from the commit it started from; pushing the
 * same commit twice is a no-op. Every git call runs with the clean configuration of
 * git-environment.ts; only clone and push read the operator's `AGENT_GIT_CONFIG`.
 */
import { access, mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors';
import type {
  BranchResult,
  CloneRepositoryInput,
  CloneRepositoryOutput,
  CommitBranchInput,
} from '../../shared/repository';
import { whileHeartbeating } from '../heartbeat';
import type { ContentStore } from '../../store/content-store';
import { restoreSnapshot } from '../../snapshots/restore';
import { commitSnapshots } from '../../git/commit-snapshots';
import { Git, GitError } from '../../git/git';

export interface RepositoryActivityDependencies {
  store: ContentStore;
  /** Where clones go: the first of `AGENT_WORKSPACE_ROOTS`, else `~/.durable-agent/workspaces`. */
  cloneRoot: string;
  /** Our git directories: never a workdir, nor inside or around one. */
  gitRoot: string;
  /** This worker's host (`AGENT_HOST_ID`). */
  hostId?: string;
  /** `AGENT_GIT_CONFIG`: the git config file clone and push read as their global config (credentials, `insteadOf`). */
  gitConfig?: string;
}

/** The clone root when `AGENT_WORKSPACE_ROOTS` names none. */
export const DEFAULT_CLONE_ROOT = join(homedir(), '.durable-agent', 'workspaces');
export const DEFAULT_GIT_ROOT = join(homedir(), '.durable-agent', 'git');

/**
 * Nothing of ours reads files through git's attributes any more (commits come from snapshots),
 * but should anything ever: no filter runs and no bytes are converted, whatever a
 * `.gitattributes` in the tree says.
 */
const PLAIN_ATTRIBUTES = '* -filter -text -eol -ident -working-tree-encoding\n';

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

export function createRepositoryActivities({
  store,
  cloneRoot,
  gitRoot,
  hostId,
  gitConfig,
}: RepositoryActivityDependencies) {
  const git = new Git({ home: gitRoot, ...(gitConfig ? { remoteConfig: gitConfig } : {}) });
  const gitDirOf = (workdir: string) => join(gitRoot, `${basename(workdir)}.git`);
  return {
    /**
     * Clones the session's repository into `<clone root>/<name>` on the branch `input.branch`.
     * When the session moves here from a lost host, the branch starts at the session's base
     * commit and the files are put back as in its last snapshot.
     */
    async cloneRepository(input: CloneRepositoryInput): Promise<CloneRepositoryOutput> {
      await checkCanClone(git, input, hostId);
      const workdir = join(cloneRoot, input.name);
      const gitDir = gitDirOf(workdir);
      return whileHeartbeating(async () => {
        if (!(await exists(workdir))) await cloneInto(git, input, { workdir, gitDir });
        const commit = await git.run(['rev-parse', `refs/heads/${input.branch}`], { gitDir });
        const move = input.move;
        if (move?.snapshotRef) {
          // A fresh clone at the base commit holds the first snapshot's files: the last snapshot
          // goes over it (force: what a crashed attempt of this restore left is overwritten).
          await restoreSnapshot(store, workdir, {
            targetRef: move.snapshotRef,
            expectedRef: move.baseRef ?? move.snapshotRef,
            force: true,
          });
        }
        return { workdir: await realpath(workdir), commit, branch: input.branch, ...(hostId ? { host: hostId } : {}) };
      });
    },

    /**
     * Commits the session's changes (its first snapshot to its last, over the base commit) to the
     * branch, and pushes it. Git reads only what we stream to it, never the session's files.
     */
    async commitBranch(input: CommitBranchInput): Promise<BranchResult> {
      const gitDir = gitDirOf(input.workdir);
      return whileHeartbeating(async () => {
        const { commit, notCommitted } = await commitSnapshots(
          { git, store },
          input,
          gitDir,
          Context.current().cancellationSignal,
        );
        const left = notCommitted.length > 0 ? { notCommitted } : {};
        try {
          await git.run(
            ['push', '--quiet', '--no-verify', 'origin', `refs/heads/${input.branch}:refs/heads/${input.branch}`],
            { gitDir, remote: true },
          );
          return { name: input.branch, commit, pushed: true, ...left };
        } catch (error) {
          return { name: input.branch, commit, pushed: false, pushError: (error as Error).message, ...left };
        }
      });
    },
  };
}

/** Whether this worker may take the session (a move needs a host other than the lost one), and git the branch's name. */
async function checkCanClone(git: Git, input: CloneRepositoryInput, hostId: string | undefined): Promise<void> {
  if (input.move && (!hostId || hostId === input.move.lostHost)) {
    // A worker without a host queue could not keep the session; the lost host's own
    // shared-queue worker (its host queue gone) must not take it back.
    throw ApplicationFailure.retryable(
      `this worker cannot take the session (host ${hostId ?? 'not set'}; moving away from ${input.move.lostHost})`,
      ErrorType.WrongHost,
    );
  }
  await git.run(['check-ref-format', `refs/heads/${input.branch}`]).catch(() => {
    throw ApplicationFailure.nonRetryable(`git refuses the branch name ${input.branch}`, ErrorType.InvalidRepository);
  });
}

/** Our git directory and the session's clone, built under names of this attempt, then renamed into place. */
async function cloneInto(
  git: Git,
  input: CloneRepositoryInput,
  { workdir, gitDir }: { workdir: string; gitDir: string },
): Promise<void> {
  const attempt = `${Context.current().info.attempt}.agent-clone`;
  const temporaryGitDir = `${gitDir}.${attempt}`;
  const temporaryWorkdir = `${workdir}.${attempt}`;
  await Promise.all([
    rm(temporaryGitDir, { recursive: true, force: true }),
    rm(temporaryWorkdir, { recursive: true, force: true }),
  ]);
  await Promise.all([mkdir(dirname(gitDir), { recursive: true }), mkdir(dirname(workdir), { recursive: true })]);
  try {
    await git.run(['clone', '--bare', '--quiet', '--no-recurse-submodules', '--', input.url, temporaryGitDir], {
      remote: true,
    });
  } catch (error) {
    throw ApplicationFailure.create({
      message: `repo.url: ${input.url} could not be cloned: ${(error as Error).message}`,
      type: ErrorType.InvalidRepository,
    });
  }
  const commit = input.move?.commit ?? (await baseCommit(git, temporaryGitDir, input));
  await git.run(['update-ref', `refs/heads/${input.branch}`, commit], { gitDir: temporaryGitDir });
  await git.run(['symbolic-ref', 'HEAD', `refs/heads/${input.branch}`], { gitDir: temporaryGitDir });
  await mkdir(join(temporaryGitDir, 'info'), { recursive: true });
  await writeFile(join(temporaryGitDir, 'info', 'attributes'), PLAIN_ATTRIBUTES);
  // The session's own clone, for its git commands; its remote is the repository's.
  await git.run([
    'clone',
    '--quiet',
    '--no-hardlinks',
    '--no-recurse-submodules',
    '--branch',
    input.branch,
    '--',
    temporaryGitDir,
    temporaryWorkdir,
  ]);
  // Named by --git-dir, in a clone made just now: no session has touched it yet.
  await git.run(['remote', 'set-url', 'origin', input.url], { gitDir: join(temporaryWorkdir, '.git') });
  await rm(gitDir, { recursive: true, force: true });
  await rename(temporaryGitDir, gitDir);
  await rename(temporaryWorkdir, workdir);
}

async function baseCommit(git: Git, gitDir: string, input: CloneRepositoryInput): Promise<string> {
  const ref = input.ref ?? 'HEAD';
  try {
    return await git.run(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`], { gitDir });
  } catch (error) {
    const what = input.ref
      ? `repo.ref: ${input.url} has no branch, tag or commit named ${input.ref}`
      : `repo.url: ${input.url} has no commits`;
    throw ApplicationFailure.nonRetryable(
      `${what} (${error instanceof GitError ? error.stderr.trim() : String(error)})`,
      ErrorType.InvalidRepository,
    );
  }
}
