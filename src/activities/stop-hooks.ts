/**
 * Stop hooks: shell commands run in the workdir when the model ends a turn without tool calls
 * (Claude Code's Stop hook protocol). Exit 0 allows the stop; exit 2, or stdout
 * `{"decision":"block","reason":…}`, blocks it with the reason (or stderr) for the model;
 * `{"continue":false,"stopReason":…}` ends the session; any other failure is reported, not a block.
 */
import { spawn } from 'node:child_process';
import { Context } from '@temporalio/activity';
import { STOP_HOOK_DEFAULT_TIMEOUT_MS } from '../shared/constants';
import type { StopHookInput, StopHookOutcome } from '../shared/types';
import { whileHeartbeating } from './heartbeat';
import { CappedOutput, commandEnvironment } from './tools/bash';

interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function runHook(command: string, cwd: string, stdin: string, timeoutMs: number, signal: AbortSignal): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env: commandEnvironment(), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout = new CappedOutput(20_000);
    const stderr = new CappedOutput(20_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.append(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.append(chunk));
    let timedOut = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    signal.addEventListener('abort', kill, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      resolve({ exitCode, stdout: stdout.toString(), stderr: stderr.toString(), timedOut });
    });
    child.stdin.on('error', () => {}); // a hook that does not read its input is fine
    child.stdin.end(stdin);
  });
}

/** Interprets one hook run; undefined means "allow". */
export function interpretHook(command: string, run: HookRun): { kind: 'block' | 'prevent'; reason: string } | { kind: 'report'; text: string } | undefined {
  let json: { decision?: string; reason?: string; continue?: boolean; stopReason?: string } | undefined;
  const trimmed = run.stdout.trim();
  if (trimmed.startsWith('{')) {
    try {
      json = JSON.parse(trimmed);
    } catch {
      json = undefined;
    }
  }
  if (json?.continue === false) return { kind: 'prevent', reason: json.stopReason || `Stop hook \`${command}\` ended the session` };
  if (json?.decision === 'block') return { kind: 'block', reason: json.reason || run.stderr.trim() || `Stop hook \`${command}\` blocked the stop` };
  if (run.timedOut) return { kind: 'report', text: `Stop hook \`${command}\` timed out; not blocking` };
  if (run.exitCode === 2) return { kind: 'block', reason: run.stderr.trim() || run.stdout.trim() || `Stop hook \`${command}\` blocked the stop` };
  if (run.exitCode !== 0) {
    return { kind: 'report', text: `Stop hook \`${command}\` failed with exit code ${run.exitCode}; not blocking: ${run.stderr.trim().slice(0, 500)}` };
  }
  return undefined;
}

export function createStopHookActivities() {
  return {
    async runStopHooks(input: StopHookInput): Promise<StopHookOutcome> {
      const context = Context.current();
      const stdin = JSON.stringify({
        session_id: input.sessionId,
        hook_event_name: 'Stop',
        cwd: input.workdir,
        stop_hook_active: input.stopHookActive,
        final_text: input.finalText,
        last_assistant_message: input.finalText,
      });
      const reports: string[] = [];
      const blocks: string[] = [];
      for (const hook of input.hooks) {
        const run = await whileHeartbeating(() =>
          runHook(hook.command, input.workdir, stdin, hook.timeoutMs ?? STOP_HOOK_DEFAULT_TIMEOUT_MS, context.cancellationSignal),
        );
        const verdict = interpretHook(hook.command, run);
        if (!verdict) continue;
        if (verdict.kind === 'prevent') return { kind: 'prevent', reason: verdict.reason, reports };
        if (verdict.kind === 'report') reports.push(verdict.text);
        else blocks.push(verdict.reason);
      }
      return blocks.length ? { kind: 'block', reason: blocks.join('\n\n'), reports } : { kind: 'allow', reports };
    },
  };
}
