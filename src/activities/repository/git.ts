/**
 * Running git for `repo` sessions. Our git directory lies outside the session's workdir, beside
 * it: the session can change its own `.git` (hooks, `core.fsmonitor`, filter drivers — all of them
 * commands), so the commits and pushes made with the worker's privileges never read it. Hooks are
 * off, and prompts too (a worker has no one to answer them).
 */
import { execFile } from 'node:child_process';

/** What git said, trimmed. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(`git ${args.filter((arg) => !arg.startsWith('core.')).join(' ')}: ${stderr.trim().split('\n').slice(-3).join(' ') || 'failed'}`);
  }
}

const SAFE_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'protocol.ext.allow=never'];

/** The commits' author and committer (the session's changes are the agent's). */
const IDENTITY = { GIT_AUTHOR_NAME: 'durable-agent', GIT_AUTHOR_EMAIL: 'durable-agent@localhost', GIT_COMMITTER_NAME: 'durable-agent', GIT_COMMITTER_EMAIL: 'durable-agent@localhost' };

export interface GitOptions {
  /** Our git directory (`--git-dir`). */
  gitDir?: string;
  /** The session's workdir (`--work-tree`). */
  workTree?: string;
  cwd?: string;
}

export function git(args: string[], options: GitOptions = {}): Promise<string> {
  const location = [...(options.gitDir ? [`--git-dir=${options.gitDir}`] : []), ...(options.workTree ? [`--work-tree=${options.workTree}`] : [])];
  const full = [...SAFE_CONFIG, ...location, ...args];
  return new Promise((resolvePromise, reject) => {
    execFile(
      'git',
      full,
      { cwd: options.cwd, env: { ...process.env, ...IDENTITY, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true' }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new GitError(args, stderr || error.message)) : resolvePromise(stdout.trim())),
    );
  });
}
