/**
 * Claude Code's headless CLI (`claude -p`, the binary @anthropic-ai/claude-agent-sdk ships) as the
 * side-by-side benchmark runs it: against a fake API (ANTHROPIC_BASE_URL), its own HOME (its
 * settings and transcripts, so `--continue` finds the session it killed), nothing sent elsewhere.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../test/support/paths';

export const CLAUDE_BIN = join(PROJECT_ROOT, 'node_modules', '@anthropic-ai', 'claude-agent-sdk-linux-x64', 'claude');

/** The `--output-format json` result's fields the benchmark reads. */
export interface ClaudeResult {
  subtype?: string;
  is_error?: boolean;
  result?: string;
  num_turns?: number;
  terminal_reason?: string;
  api_error_status?: number | null;
}

export interface ClaudeOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  result?: ClaudeResult;
  /** The last lines of stderr, for a run that printed no result. */
  stderr: string;
  ms: number;
}

export interface ClaudeRun {
  child: ChildProcess;
  outcome: Promise<ClaudeOutcome>;
}

/** `claude --version`, or why there is none. */
export function claudeVersion(): string | undefined {
  const run = spawnSync(CLAUDE_BIN, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

export const claudeHome = (): string => mkdtempSync(join(tmpdir(), 'sbs-claude-home-'));

/**
 * `claude -p <prompt>` (with `--continue`: the last session of this cwd and HOME, continued).
 * Its own process group, so `stopGroup` ends what it started (a command it was running included).
 */
export function startClaude(options: {
  baseUrl: string;
  cwd: string;
  home: string;
  prompt: string;
  continue?: boolean;
}): ClaudeRun {
  const started = performance.now();
  const args = [
    ...(options.continue ? ['--continue'] : []),
    '-p',
    options.prompt,
    '--permission-mode',
    'bypassPermissions',
    '--output-format',
    'json',
  ];
  const child = spawn(CLAUDE_BIN, args, {
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: options.home,
      TMPDIR: process.env.TMPDIR,
      ANTHROPIC_BASE_URL: options.baseUrl,
      ANTHROPIC_API_KEY: 'x',
      IS_SANDBOX: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_BUG_COMMAND: '1',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const outcome = new Promise<ClaudeOutcome>((resolve) => {
    child.once('exit', (code, signal) => {
      const ms = performance.now() - started;
      resolve({
        code,
        signal,
        result: parseResult(stdout),
        stderr: stderr.trim().split('\n').slice(-3).join(' | '),
        ms,
      });
    });
  });
  return { child, outcome };
}

function parseResult(stdout: string): ClaudeResult | undefined {
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((candidate) => candidate.startsWith('{'));
  if (!line) return undefined;
  try {
    return JSON.parse(line) as ClaudeResult;
  } catch {
    return undefined;
  }
}

/** SIGKILL to what a run started and left (its process group); nothing if it is gone. */
export function stopGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** How a Claude Code run ended, in a few words. */
export function describeClaude(outcome: ClaudeOutcome): string {
  const result = outcome.result;
  if (!result) return `exited ${outcome.signal ?? outcome.code} without a result (${outcome.stderr || 'no output'})`;
  const status = result.api_error_status ? `, API error ${result.api_error_status}` : '';
  // An API error still ends with subtype `success`: `is_error` and `terminal_reason` tell.
  return `${result.is_error ? 'error' : (result.subtype ?? '?')}, ${result.terminal_reason ?? '?'}${status}: ${(result.result ?? '').slice(0, 120)}`;
}
