/**
 * Running git for `repo` sessions, always with the clean configuration of git-environment.ts and
 * always in the worker's own git root, never in a session's directory. Our git directory lies
 * outside every workdir and workspace root (`~/.durable-agent/git`, refused as a workdir): the
 * session can change its own `.git` (hooks, `core.fsmonitor`, filter drivers — all of them
 * commands) and every file of its work tree, so no git call the worker makes reads either: the
 * commit is built from the session's snapshots and given to git on its standard input.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gitEnvironment, gitPrefix } from './git-environment';

/** What git said, trimmed. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''}: ${stderr.trim().split('\n').slice(-3).join(' ') || 'failed'}`);
  }
}

export interface GitCall {
  /** Our git directory (`--git-dir`); unset only for calls that need no repository (clone, check-ref-format). */
  gitDir?: string;
  /** The call reaches a remote (clone, fetch, push): the operator's `AGENT_GIT_CONFIG` applies. */
  remote?: boolean;
  /** Standard input, streamed with backpressure (fast-import). */
  input?: AsyncIterable<Buffer>;
  signal?: AbortSignal;
  /** `false`: the output as git wrote it (NUL-separated listings, where a name may end in a space). */
  trim?: false;
}

export interface GitSettings {
  /** A directory of the worker's own that no session sees (the git root): every call runs there. */
  home: string;
  /** `AGENT_GIT_CONFIG`: the global config of calls that reach a remote. */
  remoteConfig?: string;
}

export class Git {
  private homeMade: Promise<unknown> | undefined;
  private sshConfigured: Promise<boolean> | undefined;

  constructor(private readonly settings: GitSettings) {}

  /** Runs `git <args>`; resolves with its standard output (trimmed unless told not to). */
  async run(args: string[], call: GitCall = {}): Promise<string> {
    const { home, remoteConfig } = this.settings;
    // The git root may not exist yet (the first clone makes it); every call runs in it.
    await (this.homeMade ??= mkdir(home, { recursive: true }));
    const global = call.remote ? remoteConfig : undefined;
    const env = gitEnvironment(process.env, {
      cwd: home,
      ...(global ? { globalConfig: global, configuresSsh: await this.configuresSsh(global) } : {}),
    });
    const argv = [...gitPrefix(call.gitDir), ...args];
    const output = call.input
      ? await runWithInput(argv, args, env, home, call)
      : await runPlain(argv, args, env, home, call.signal);
    return call.trim === false ? output : output.trim();
  }

  /** Whether the operator's config names its own `core.sshCommand` (asked once). */
  private configuresSsh(file: string): Promise<boolean> {
    this.sshConfigured ??= this.run(['config', '--includes', '--file', file, '--get', 'core.sshCommand']).then(
      (value) => value !== '',
      () => false,
    );
    return this.sshConfigured;
  }
}

function runPlain(
  argv: string[],
  args: string[],
  env: Record<string, string>,
  cwd: string,
  signal?: AbortSignal,
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      'git',
      argv,
      { cwd, env, maxBuffer: 16 * 1024 * 1024, ...(signal ? { signal } : {}) },
      (error, stdout, stderr) => (error ? reject(new GitError(args, stderr || error.message)) : resolvePromise(stdout)),
    );
  });
}

/** A call fed on standard input: its exit says how it went (a write into a pipe git closed fails too, but says less). */
async function runWithInput(
  argv: string[],
  args: string[],
  env: Record<string, string>,
  cwd: string,
  call: GitCall,
): Promise<string> {
  const child = spawn('git', argv, {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(call.signal ? { signal: call.signal } : {}),
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise<number | null>((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolvePromise(code));
  });
  const fed = pipeline(Readable.from(call.input!), child.stdin).then(
    () => undefined,
    (error: unknown) => error,
  );
  const [code, feedError] = await Promise.all([exited.catch((error: Error) => error), fed]);
  if (code instanceof Error) throw new GitError(args, code.message);
  if (code !== 0) {
    // Git stopped reading: what it said matters, not the broken pipe. Our own stream's failure is re-thrown as is.
    if (feedError && !isBrokenPipe(feedError)) throw feedError;
    throw new GitError(args, Buffer.concat(stderr).toString() || `exit code ${code}`);
  }
  if (feedError) throw feedError;
  return Buffer.concat(stdout).toString();
}

function isBrokenPipe(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ERR_STREAM_DESTROYED';
}
