import type { CommandSandbox, SessionSandbox } from './command-sandbox';

/**
 * Runs a shell command as its sandbox says (bubblewrap, or unconfined beside a watchdog), in its
 * own process group: a timeout or a cancellation kills the whole group, and with it the sandbox
 * and everything inside. Used by the Bash tool and by stop hooks.
 */
/** Keeps the head and the tail of long output, as Claude Code does. */
export class CappedOutput {
  private head = '';
  private tail = '';
  private total = 0;

  constructor(private readonly limit: number) {}

  append(chunk: string): void {
    this.total += chunk.length;
    const half = Math.floor(this.limit / 2);
    if (this.head.length < half) {
      const room = half - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk.length) this.tail = (this.tail + chunk).slice(-half);
  }

  toString(): string {
    const kept = this.head.length + this.tail.length;
    if (this.total <= kept) return this.head + this.tail;
    return `${this.head}\n\n... [${this.total - kept} characters of output cut] ...\n\n${this.tail}`;
  }
}

export interface GroupRun {
  /** stdout and stderr interleaved as they came. */
  output: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
}

export interface GroupOptions {
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  maxOutputChars: number;
  /** Text for the command's standard input; none (no terminal, no input) when absent. */
  stdin?: string;
  sandbox: CommandSandbox;
  session?: SessionSandbox;
  /** Sees the output as it comes (live progress for watchers). */
  onOutput?: (chunk: string) => void;
  /** Host directories of the worker's the command reads, bound read-only (a hook's transcript). */
  readOnlyBinds?: { source: string; target: string }[];
}

export async function runInProcessGroup(command: string, options: GroupOptions): Promise<GroupRun> {
  const child = await options.sandbox.start(command, options.cwd, options.session, {
    stdin: options.stdin !== undefined,
    ...(options.readOnlyBinds?.length ? { readOnlyBinds: options.readOnlyBinds } : {}),
  });
  return new Promise((resolve, reject) => {
    const output = new CappedOutput(options.maxOutputChars);
    const stdout = new CappedOutput(options.maxOutputChars);
    const stderr = new CappedOutput(options.maxOutputChars);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output.append(chunk);
      stdout.append(chunk);
      options.onOutput?.(chunk);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      output.append(chunk);
      stderr.append(chunk);
      options.onOutput?.(chunk);
    });
    let timedOut = false;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    options.signal.addEventListener('abort', killGroup, { once: true });
    const settle = () => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', killGroup);
    };
    child.on('error', (error) => {
      settle();
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      settle();
      // What the command left running in its group (`nohup … &`) ends with the call.
      killGroup();
      resolve({
        output: output.toString(),
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        exitCode,
        signal,
        timedOut,
      });
    });
    if (child.stdin) {
      child.stdin.on('error', () => {}); // a command that does not read its input is fine
      child.stdin.end(options.stdin);
    }
  });
}
