import { spawn } from 'node:child_process';
import { z } from 'zod';
import { BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_OUTPUT_CHARS, BASH_MAX_TIMEOUT_MS } from '../../shared/constants';
import { defineTool } from './tool';

/**
 * Variables never passed to commands the model writes: the worker's own secrets.
 * Anything named like a credential is dropped too; users pass what a command needs explicitly.
 */
const SECRET_NAME = /^(ANTHROPIC_|TEMPORAL_|AGENT_)|API_KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL/i;

export function commandEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (!SECRET_NAME.test(name)) environment[name] = value;
  }
  // Commands run unattended: nothing may wait for a pager or an editor.
  environment.PAGER = 'cat';
  environment.GIT_PAGER = 'cat';
  environment.GIT_TERMINAL_PROMPT = '0';
  return environment;
}

/**
 * Runs the command in its own process group next to a watchdog that kills the group when the
 * worker process disappears. Without it, a SIGKILLed worker would leave the command running
 * while Temporal retries it on another worker: two copies at once.
 */
const LAUNCHER = [
  'worker_pid="$1"; user_command="$2"',
  '( while kill -0 "$worker_pid" 2>/dev/null; do sleep 1; done; kill -KILL 0 ) </dev/null >/dev/null 2>&1 &',
  'watchdog=$!',
  'bash -c "$user_command" </dev/null',
  'status=$?',
  'kill "$watchdog" 2>/dev/null',
  'exit $status',
].join('\n');

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

interface CommandRun {
  output: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
}

function runCommand(command: string, cwd: string, timeoutMs: number, abort: AbortSignal): Promise<CommandRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-c', LAUNCHER, 'durable-agent-bash', String(process.pid), command], {
      cwd,
      env: commandEnvironment(),
      detached: true, // own process group, so the whole tree can be killed at once
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = new CappedOutput(BASH_MAX_OUTPUT_CHARS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));
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
    }, timeoutMs);
    const onAbort = () => killGroup();
    abort.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      abort.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      abort.removeEventListener('abort', onAbort);
      resolvePromise({ output: output.toString(), exitCode, signal, timedOut });
    });
  });
}

export const bashTool = defineTool({
  name: 'Bash',
  description: [
    'Runs a bash command in the working directory and returns its output (stdout and stderr) and exit code.',
    `- Timeout: ${BASH_DEFAULT_TIMEOUT_MS / 1000} s by default, at most ${BASH_MAX_TIMEOUT_MS / 1000} s (timeout is in milliseconds).`,
    `- Output over ${BASH_MAX_OUTPUT_CHARS} characters is cut in the middle, keeping its head and tail.`,
    '- Commands run without a terminal or standard input: use non-interactive flags.',
    '- Use Read, Edit, Write, Glob and Grep rather than cat, sed, find or grep where they fit.',
  ].join('\n'),
  schema: z
    .object({
      command: z.string().min(1).describe('The command to run'),
      timeout: z.number().int().positive().max(BASH_MAX_TIMEOUT_MS).optional().describe('Timeout in milliseconds'),
      description: z.string().optional().describe('What the command does, in 5 to 10 words'),
    })
    .strict(),
  isConcurrencySafe: () => false,
  summarize: (input) => `Bash ${input.description ? input.description : firstLine(input.command)}`,
  async execute(input, context) {
    const timeoutMs = input.timeout ?? BASH_DEFAULT_TIMEOUT_MS;
    const run = await runCommand(input.command, context.workdir, timeoutMs, context.signal);
    const parts: string[] = [];
    if (context.attempt > 1) {
      parts.push(
        `Note: this command had already been started (attempt ${context.attempt - 1}) but the worker running it ` +
          'stopped before it finished. It was run again from the start; effects of the interrupted run may be present.',
      );
    }
    parts.push(run.output.trimEnd() || '(no output)');
    if (run.timedOut) {
      parts.push(`Command timed out after ${timeoutMs} ms and was killed.`);
      return { text: parts.join('\n\n'), isError: true };
    }
    if (run.exitCode === null) {
      parts.push(`Command was killed by signal ${run.signal}.`);
      return { text: parts.join('\n\n'), isError: true };
    }
    parts.push(`Exit code: ${run.exitCode}`);
    return { text: parts.join('\n\n'), isError: run.exitCode !== 0 };
  },
});

function firstLine(command: string): string {
  const line = command.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
