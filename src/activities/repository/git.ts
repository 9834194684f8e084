/**
 * Running git for `repo` sessions. Our git directory lies outside every workdir and workspace
 * root (`~/.durable-agent/git`, refused as a workdir): the session can change its own `.git`
 * (hooks, `core.fsmonitor`, filter drivers — all of them commands), so the commits and pushes
 * made with the worker's privileges never read it. Hooks are off, and prompts too (a worker has
 * no one to answer them).
 */
import { execFile } from 'node:child_process';

/** What git said, trimmed. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''}: ${stderr.trim().split('\n').slice(-3).join(' ') || 'failed'}`);
  }
}

const SAFE_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'protocol.ext.allow=never'];

/** The commits' author and committer (the session's changes are the agent's). */
const IDENTITY = { GIT_AUTHOR_NAME: 'durable-agent', GIT_AUTHOR_EMAIL: 'durable-agent@localhost', GIT_COMMITTER_NAME: 'durable-agent', GIT_COMMITTER_EMAIL: 'durable-agent@localhost' };

/** Neither the system's nor the user's git config: for what reads the session's files (add, write-tree). */
export const WITHOUT_USER_CONFIG = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

export interface GitOptions {
  /** Our git directory (`--git-dir`). */
  gitDir?: string;
  /** The session's workdir (`--work-tree`). */
  workTree?: string;
  cwd?: string;
  env?: Record<string, string>;
}

export function git(args: string[], options: GitOptions = {}): Promise<string> {
  const location = [...(options.gitDir ? [`--git-dir=${options.gitDir}`] : []), ...(options.workTree ? [`--work-tree=${options.workTree}`] : [])];
  const env = {
    ...process.env,
    ...IDENTITY,
    GIT_TERMINAL_PROMPT: '0',
    // ssh must not ask either (a worker's own GIT_SSH_COMMAND still wins).
    GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
    ...options.env,
  };
  return new Promise((resolvePromise, reject) => {
    execFile('git', [...SAFE_CONFIG, ...location, ...args], { cwd: options.cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new GitError(args, stderr || error.message)) : resolvePromise(stdout.trim()),
    );
  });
}
