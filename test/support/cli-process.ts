/** `durable-agent <args>` as a process whose output a test reads line by line as it comes. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from './paths';

export interface OutputLine {
  text: string;
  /** Date.now() when the test process read it. */
  at: number;
}

export class CliProcess {
  readonly stdout: OutputLine[] = [];
  readonly stderr: OutputLine[] = [];
  readonly exited: Promise<number>;
  private readonly child: ChildProcess;
  private waiters: (() => void)[] = [];

  constructor(args: string[], environment: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'durable-agent.js'), ...args], {
      cwd: PROJECT_ROOT,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.collect(this.child.stdout!, this.stdout);
    this.collect(this.child.stderr!, this.stderr);
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code ?? 1)));
  }

  private collect(stream: NodeJS.ReadableStream, lines: OutputLine[]): void {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const at = Date.now();
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const text of parts) lines.push({ text, at });
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Resolves with the first line of `stream` matching `pattern` (rejects if the process ends first). */
  async waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs = 60_000): Promise<OutputLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this[stream].find((line) => pattern.test(line.text));
      if (found) return found;
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        new Promise<false>((resolve) => this.waiters.push(() => resolve(false))),
        this.exited.then(() => true),
        new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), Math.max(0, deadline - Date.now())))),
      ]);
      clearTimeout(timer);
      if (ended) {
        const last = this[stream].find((line) => pattern.test(line.text));
        if (last) return last;
        throw new Error(
          `durable-agent ended or timed out without printing ${pattern} on ${stream}:\n${this.stdout.map((line) => line.text).join('\n')}\n${this.stderr.map((line) => line.text).join('\n')}`,
        );
      }
    }
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
