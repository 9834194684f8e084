/**
 * One hook command, as every kind of hook runs it: in the session's sandbox, in the workdir, with
 * Claude Code's JSON on stdin and its own timeout, its process group killed when the activity is
 * cancelled, heartbeating meanwhile (a hook may run for minutes). `CLAUDE_PROJECT_DIR` is the workdir.
 */
import { Context } from '@temporalio/activity';
import { STOP_HOOK_DEFAULT_TIMEOUT_MS } from '../../shared/limits';
import { type CallProgress, whileHeartbeating } from '../heartbeat';
import type { CommandSandbox, SessionSandbox } from '../../sandbox/command-sandbox';
import { type GroupRun, runInProcessGroup } from '../../sandbox/process-group';
import { withProjectDir } from '../../sandbox/command-environment';

/** What a hook's output may hold before it is cut (its verdict is read from it). */
export const HOOK_OUTPUT_MAX_CHARS = 20_000;

/** What a hook activity's heartbeats say once its hooks ran. */
export const SNAPSHOT_AFTER_HOOKS = 'snapshot of the workspace as the hooks left it';

export interface HookPlace {
  workdir: string;
  stdin: string;
  sandbox: CommandSandbox;
  session?: SessionSandbox;
  /** Host directories the hook reads, bound read-only (its transcript's). */
  readOnlyBinds?: { source: string; target: string }[];
}

/** `progress` (the hook's command, its output's last line) is what the activity's heartbeats carry meanwhile. */
export function runHook(
  hook: { command: string; timeoutMs?: number },
  where: HookPlace,
  progress: CallProgress,
): Promise<GroupRun> {
  return whileHeartbeating(
    () =>
      runInProcessGroup(hook.command, {
        cwd: where.workdir,
        stdin: where.stdin,
        timeoutMs: hook.timeoutMs ?? STOP_HOOK_DEFAULT_TIMEOUT_MS,
        signal: Context.current().cancellationSignal,
        maxOutputChars: HOOK_OUTPUT_MAX_CHARS,
        sandbox: where.sandbox,
        onOutput: progress.onOutput,
        // Claude Code's CLAUDE_PROJECT_DIR: the workdir, whatever the session's variables say.
        session: withProjectDir(where.session, where.workdir),
        ...(where.readOnlyBinds ? { readOnlyBinds: where.readOnlyBinds } : {}),
      }),
    progress,
  );
}
