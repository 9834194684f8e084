/**
 * Stop hooks: shell commands run in the workdir when the model ends a turn without tool calls
 * (Claude Code's Stop hook protocol). Exit 0 allows the stop; exit 2, or stdout
 * `{"decision":"block","reason":…}`, blocks it with the reason (or stderr) for the model;
 * `{"continue":false,"stopReason":…}` ends the session; any other failure is reported, not a block.
 * Stop's `prompt` hooks follow the commands: the small model's `{"ok": false}` blocks the stop.
 */
import { Context } from '@temporalio/activity';
import type { StopHookInput, StopHookOutcome } from '../../shared/activity-io';
import { CallProgress, whileHeartbeating } from '../heartbeat';
import type { CommandSandbox } from '../../sandbox/command-sandbox';
import type { ContentStore } from '../../store/content-store';
import type { GroupRun } from '../../sandbox/process-group';
import { snapshotOver } from '../workspace/workspace-activities';
import type { ModelApi } from '../model/anthropic';
import { runPromptHooks } from './prompt-hooks';
import { runHook, SNAPSHOT_AFTER_HOOKS } from './run-hook';

type HookRun = Pick<GroupRun, 'exitCode' | 'stdout' | 'stderr' | 'timedOut'>;

/** Interprets one hook run; undefined means "allow". */
export function interpretHook(
  command: string,
  run: HookRun,
): { kind: 'block' | 'prevent'; reason: string } | { kind: 'report'; text: string } | undefined {
  let json: { decision?: string; reason?: string; continue?: boolean; stopReason?: string } | undefined;
  const trimmed = run.stdout.trim();
  if (trimmed.startsWith('{')) {
    try {
      json = JSON.parse(trimmed);
    } catch {
      json = undefined;
    }
  }
  if (json?.continue === false)
    return { kind: 'prevent', reason: json.stopReason || `Stop hook \`${command}\` ended the session` };
  if (json?.decision === 'block')
    return { kind: 'block', reason: json.reason || run.stderr.trim() || `Stop hook \`${command}\` blocked the stop` };
  if (run.timedOut) return { kind: 'report', text: `Stop hook \`${command}\` timed out; not blocking` };
  if (run.exitCode === 2)
    return {
      kind: 'block',
      reason: run.stderr.trim() || run.stdout.trim() || `Stop hook \`${command}\` blocked the stop`,
    };
  if (run.exitCode !== 0) {
    return {
      kind: 'report',
      text: `Stop hook \`${command}\` failed with exit code ${run.exitCode}; not blocking: ${run.stderr.trim().slice(0, 500)}`,
    };
  }
  return undefined;
}

export function createStopHookActivities({
  sandbox,
  store,
  api,
  smallModel,
}: {
  sandbox: CommandSandbox;
  store: ContentStore;
  /** For Stop's `prompt` hooks (see prompt-hooks.ts). */
  api?: ModelApi;
  smallModel?: string;
}) {
  return {
    async runStopHooks(input: StopHookInput): Promise<StopHookOutcome> {
      const outcome = await runHooks(input);
      // Hooks are commands: the workspace as they left it is the turn's snapshot (taken here, not
      // by an activity of its own). Not when cancelled: the workflow then takes it.
      const cancelled = Context.current().cancellationSignal.aborted;
      const snapshotting = new CallProgress('Stop hooks', SNAPSHOT_AFTER_HOOKS);
      const snapshot =
        input.snapshotRef && !cancelled
          ? await whileHeartbeating(() => snapshotOver(store, input.workdir, input.snapshotRef!), snapshotting)
          : undefined;
      return snapshot ? { ...outcome, snapshot } : outcome;
    },
  };

  async function runHooks(input: StopHookInput): Promise<StopHookOutcome> {
    const stdin = JSON.stringify({
      session_id: input.sessionId,
      hook_event_name: input.event ?? 'Stop',
      cwd: input.workdir,
      ...(input.permissionMode ? { permission_mode: input.permissionMode } : {}),
      ...(input.agent ? { agent_id: input.agent.id, agent_type: input.agent.type } : {}),
      stop_hook_active: input.stopHookActive,
      final_text: input.finalText,
      last_assistant_message: input.finalText,
    });
    const reports: string[] = [];
    const blocks: string[] = [];
    for (const hook of input.hooks) {
      const where = { workdir: input.workdir, stdin, sandbox, session: input.sandbox };
      const run = await runHook(hook, where, new CallProgress('Stop hook', hook.command));
      const verdict = interpretHook(hook.command, run);
      if (!verdict) continue;
      if (verdict.kind === 'prevent') return { kind: 'prevent', reason: verdict.reason, reports };
      if (verdict.kind === 'report') reports.push(verdict.text);
      else blocks.push(verdict.reason);
    }
    // Stop's prompt hooks: the small model's `{"ok": false, "reason"}` blocks the stop like exit 2.
    for (const verdict of input.prompts?.length
      ? await runPromptHooks('Stop', input.prompts, stdin, { api, smallModel })
      : []) {
      if (verdict.report) reports.push(verdict.report);
      if (verdict.blocked) blocks.push(verdict.blocked);
    }
    return blocks.length ? { kind: 'block', reason: blocks.join('\n\n'), reports } : { kind: 'allow', reports };
  }
}
