/**
 * A `repo` session's commit, made from its snapshots: the base commit plus the changes between
 * the session's first snapshot and its last (branch-changes.ts), streamed to `git fast-import`
 * in our git directory. Git never reads the session's work tree, index or `.git`: what it commits
 * is what the snapshots hold, so the result's `filesChanged` (the same two snapshots) lists
 * exactly the commit's changes, but for those in `notCommitted`.
 *
 * Safe to retry: the import lands on a ref of this attempt's own, the branch moves only from the
 * commit it was at when the attempt started (compare-and-swap), and only when the tree differs
 * from that commit's. A retry after the branch moved finds the same tree over the new commit
 * (the changes set paths, they do not add to them), so it makes no second commit.
 */
import { randomUUID } from 'node:crypto';
import type { CommitBranchInput, NotCommitted } from '../shared/repository';
import { Workdir } from '../workdir/workdir';
import type { ContentStore } from '../store/content-store';
import { snapshotOf } from '../snapshots/snapshot';
import { type BranchChanges, changesBetween, changesOverBase } from './branch-changes';
import { importStream } from './fast-import';
import type { Git } from './git';

export interface CommitDependencies {
  git: Git;
  store: ContentStore;
}

export interface SessionCommit {
  /** The branch's head now: the new commit, or the commit it was at when nothing changed. */
  commit: string;
  notCommitted: NotCommitted[];
}

/** Commits the session's changes to `input.branch` in `gitDir`. */
export async function commitSnapshots(
  { git, store }: CommitDependencies,
  input: CommitBranchInput,
  gitDir: string,
  signal?: AbortSignal,
): Promise<SessionCommit> {
  const branchRef = `refs/heads/${input.branch}`;
  const head = await git.run(['rev-parse', '--verify', '--end-of-options', `${branchRef}^{commit}`], { gitDir });
  // Opened when first needed: the snapshots alone make the commit unless a file is over the size limit.
  const workdir = new LazyWorkdir(input.workdir);
  try {
    const changes = await changesToCommit(git, store, workdir, input, head, gitDir, signal);
    const notCommitted = changes.notCommitted;
    if (changes.deletions.length === 0 && changes.writes.length === 0)
      return { commit: head, notCommitted: sorted(notCommitted) };
    const ref = `refs/agent-import/${randomUUID()}`;
    const { stream, failed } = importStream({
      ref,
      from: head,
      message: input.message,
      time: Math.floor(Date.now() / 1000),
      deletions: changes.deletions,
      writes: changes.writes,
    });
    try {
      await git.run(['fast-import', '--quiet', '--done'], { gitDir, input: stream, signal });
      for (const [path, reason] of failed) notCommitted.push({ path, reason });
      const made = await git.run(['rev-parse', '--verify', `${ref}^{commit}`], { gitDir });
      const [tree, headTree] = await Promise.all([
        git.run(['rev-parse', `${made}^{tree}`], { gitDir }),
        git.run(['rev-parse', `${head}^{tree}`], { gitDir }),
      ]);
      if (tree === headTree) return { commit: head, notCommitted: sorted(notCommitted) };
      await git.run(['update-ref', branchRef, made, head], { gitDir });
      return { commit: made, notCommitted: sorted(notCommitted) };
    } finally {
      await git.run(['update-ref', '-d', ref], { gitDir }).catch(() => undefined);
    }
  } finally {
    workdir.close();
  }
}

async function changesToCommit(
  git: Git,
  store: ContentStore,
  workdir: LazyWorkdir,
  input: CommitBranchInput,
  head: string,
  gitDir: string,
  signal?: AbortSignal,
): Promise<BranchChanges> {
  if (input.fromRef !== undefined && input.toRef !== undefined)
    return changesBetween(store, () => workdir.get(), input.fromRef, input.toRef, signal);
  // Only sessions whose workflow code predates the references get here (their first attempt was
  // scheduled without them). No snapshot of the base commit's files exists to compare with, so
  // the workdir's files now are laid over the base commit's tree: still never read by git.
  const snapshot = await snapshotOf(store, workdir.get(), undefined, { signal });
  return changesOverBase(store, () => workdir.get(), snapshot.ref, await trackedPaths(git, gitDir, head), signal);
}

/** The base commit's files and symlinks (not its gitlinks), by path. */
async function trackedPaths(git: Git, gitDir: string, commit: string): Promise<string[]> {
  const listing = await git.run(['ls-tree', '-r', '-z', '--full-tree', commit], { gitDir, trim: false });
  const paths: string[] = [];
  for (const record of listing.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0 || record.startsWith('160000 ')) continue;
    paths.push(record.slice(tab + 1));
  }
  return paths;
}

const sorted = (entries: NotCommitted[]) => entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

/** The workdir, opened on first use (every component without following links, see Workdir.open). */
class LazyWorkdir {
  private opened: Workdir | undefined;

  constructor(private readonly path: string) {}

  get(): Workdir {
    return (this.opened ??= Workdir.open(this.path));
  }

  close(): void {
    this.opened?.close();
  }
}
