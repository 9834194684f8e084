import { z } from 'zod';
import {
  BASH_ACTIVITY_MARGIN_MS,
  BASH_DEFAULT_TIMEOUT_MS,
  BASH_MAX_OUTPUT_CHARS,
  BASH_MAX_TIMEOUT_MS,
} from '../../shared/limits';
import { parseCommandLine } from './bash-commands';
import { describeLimits, type SandboxLimits } from '../../sandbox/sandbox-limits';
import { type GroupRun, runInProcessGroup } from '../../sandbox/process-group';
import type { FileChange } from '../../shared/workspace';
import { describeChanges } from '../../snapshots/changes';
import { defineTool } from './tool';
import { BACKGROUND_DEFAULT_TIMEOUT_MS } from '../../shared/background';

export const bashTool = defineTool({
  name: 'Bash',
  description: [
    'Runs a bash command in the working directory and returns its output (stdout and stderr) and exit code.',
    `- Timeout: ${BASH_DEFAULT_TIMEOUT_MS / 1000} s by default, at most ${BASH_MAX_TIMEOUT_MS / 1000} s (timeout is in milliseconds).`,
    `- Output over ${BASH_MAX_OUTPUT_CHARS} characters is cut in the middle, keeping its head and tail.`,
    '- Commands run without a terminal or standard input: use non-interactive flags.',
    '- Use Read, Edit, Write, Glob and Grep rather than cat, sed, find or grep where they fit.',
    '- `run_in_background` runs the command detached: it keeps running across turns and you are notified when it exits ' +
      '(TaskOutput reads its output or waits for it, TaskStop stops it). No `&` needed.',
  ].join('\n'),
  schema: z
    .object({
      command: z.string().min(1).describe('The command to run'),
      timeout: z.number().int().positive().max(BASH_MAX_TIMEOUT_MS).optional().describe('Timeout in milliseconds'),
      description: z.string().optional().describe('What the command does, in 5 to 10 words'),
      run_in_background: z
        .boolean()
        .optional()
        .describe(
          `Set to true to run this command in the background. With it, \`timeout\` limits how long the command may run in the background before it is stopped (default ${BACKGROUND_DEFAULT_TIMEOUT_MS} ms, max ${BASH_MAX_TIMEOUT_MS} ms).`,
        ),
      dangerouslyDisableSandbox: z
        .boolean()
        .optional()
        .describe('Accepted, never honoured: commands always run in the sandbox'),
    })
    .strict(),
  needsApproval: true,
  isConcurrencySafe: () => false,
  // Claude Code's rule: later calls of the response may depend on a command that failed.
  cancelsLaterCallsOnError: true,
  // A command may run for its whole timeout; the activity must outlive it.
  activityTimeoutMs: (input) => timeoutOf(input) + BASH_ACTIVITY_MARGIN_MS,
  resultsClearable: true,
  readsFile: false,
  changesFiles: true,
  // The workflow starts it as an activity the turn does not wait for (turn/background-tasks.ts).
  background: (input) => (input.run_in_background ? 'start' : undefined),
  subject: (input) => input.command,
  async approvalFacts(input, { workdir }) {
    const line = await parseCommandLine(input.command, workdir);
    return line.ok ? { commands: line.commands } : { notMatchable: line.reason };
  },
  summarize: (input) => `Bash ${input.description ? input.description : firstLine(input.command)}`,
  async execute(input, context) {
    // A retry after the worker died mid-command: running it again could apply half of it twice
    // (an append, a move). The model learns exactly what the lost run changed, and decides.
    if (context.lostWithHost) return lostWithHostReport();
    if (context.attempt > 1 && context.changesSinceSnapshot)
      return lostRunReport(context.attempt, await context.changesSinceSnapshot());
    const timeoutMs = timeoutOf(input);
    const run = await runInProcessGroup(input.command, {
      cwd: context.workdir,
      timeoutMs,
      signal: context.signal,
      maxOutputChars: BASH_MAX_OUTPUT_CHARS,
      sandbox: context.sandbox,
      session: context.sessionSandbox,
      ...(context.onOutput ? { onOutput: context.onOutput } : {}),
    });
    const parts: string[] = [];
    if (context.attempt > 1) {
      parts.push(
        `Note: this command had already been started (attempt ${context.attempt - 1}) but the worker running it ` +
          'stopped before it finished. It was run again from the start; effects of the interrupted run may be present.',
      );
    }
    parts.push(run.output.trimEnd() || '(no output)');
    if (input.dangerouslyDisableSandbox) parts.push(SANDBOX_STAYS_ON);
    if (run.timedOut) {
      parts.push(`Command timed out after ${timeoutMs} ms and was killed.`);
      return { text: parts.join('\n\n'), isError: true };
    }
    const limit = limitNote(run, context.sandbox.limits);
    if (run.exitCode === null) {
      parts.push(`Command was killed by signal ${run.signal}.${limit ? ` ${limit}` : ''}`);
      return { text: parts.join('\n\n'), isError: true };
    }
    if (limit && run.exitCode !== 0) parts.push(limit);
    parts.push(`Exit code: ${run.exitCode}`);
    return { text: parts.join('\n\n'), isError: run.exitCode !== 0 };
  },
});

/** The answer to `dangerouslyDisableSandbox: true`: nothing a model sends turns the sandbox off. */
const SANDBOX_STAYS_ON =
  'Note: dangerouslyDisableSandbox is not honoured here: the command ran in the sandbox, as every command does.';

/** What a process says when the sandbox's limits stopped it (fork, an allocation), or the signal a limit sends. */
const LIMIT_SYMPTOMS =
  /fork: (retry|Resource temporarily unavailable)|Resource temporarily unavailable|Cannot allocate memory|MemoryError|[Oo]ut of memory|ENOMEM|EAGAIN|File too large/;

/** A note saying a command may have hit the sandbox's limits, naming them and how to raise them. */
function limitNote(run: GroupRun, limits: SandboxLimits): string | undefined {
  const named =
    run.signal === 'SIGXCPU' ? 'its CPU time limit' : run.signal === 'SIGXFSZ' ? 'its file size limit' : undefined;
  if (!named && !LIMIT_SYMPTOMS.test(run.output)) return undefined;
  return (
    `Note: ${named ? `the command reached ${named}` : 'the command may have reached a limit'}: each command here is limited to ${describeLimits(limits)} ` +
    '(the worker sets them: AGENT_SANDBOX_MAX_PROCESSES, AGENT_SANDBOX_MAX_MEMORY, AGENT_SANDBOX_MAX_FILE_SIZE, AGENT_SANDBOX_MAX_CPU_SECONDS).'
  );
}

function lostRunReport(attempt: number, changes: FileChange[]): { text: string; isError: true } {
  const what = changes.length
    ? `Since it started, the workspace changed: ${describeChanges(changes)}.`
    : 'No file in the workspace changed since it started.';
  return {
    text:
      `This command was started (attempt ${attempt - 1}) but the worker running it stopped before it finished, so its output is lost. ` +
      `It was not run again. ${what} Check these files and run again only what is still needed.`,
    isError: true,
  };
}

/** The command had started on a host that was lost; the session moved, its files as before the command. */
function lostWithHostReport(): { text: string; isError: true } {
  return {
    text:
      'This command was started, but the host running it was lost before it finished, so its output is lost. The session moved to another host, ' +
      'where the files are as they were before the command started: its changes to files are not there. It was not run again (effects outside ' +
      'the workspace, if any, may have happened). Run it again if it is still needed.',
    isError: true,
  };
}

/** A background command may run longer by default (Claude Code's 10 minutes). */
function timeoutOf(input: { timeout?: number; run_in_background?: boolean }): number {
  return input.timeout ?? (input.run_in_background ? BACKGROUND_DEFAULT_TIMEOUT_MS : BASH_DEFAULT_TIMEOUT_MS);
}

function firstLine(command: string): string {
  const line = command.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
