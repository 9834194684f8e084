/**
 * runToolHooks: the PreToolUse, PostToolUse or UserPromptSubmit hooks that matched one call (or
 * prompt), run in the session's sandbox in the workdir, one after the other, each with its
 * timeout, with Claude Code's JSON on stdin. hook-output.ts reads what each says; this activity
 * puts PostToolUse feedback after the call's result (stored like any result) and, when asked,
 * snapshots what the hooks changed (a formatter rewrites the file the call just wrote).
 */
import { Context } from '@temporalio/activity';
import type { ToolHookInput, ToolHookOutcome } from '../../shared/hooks';
import { CallProgress, whileHeartbeating } from '../heartbeat';
import type { CommandSandbox } from '../../sandbox/command-sandbox';
import { type ContentStore, loadText, storeText } from '../../store/content-store';
import { snapshotOver } from '../workspace/workspace-activities';
import { combineVerdicts, type HookVerdict, interpretToolHook } from './hook-output';
import { runHook, SNAPSHOT_AFTER_HOOKS } from './run-hook';

export function createToolHookActivities({ sandbox, store }: { sandbox: CommandSandbox; store: ContentStore }) {
  return {
    async runToolHooks(input: ToolHookInput): Promise<ToolHookOutcome> {
      const context = Context.current();
      const resultText = input.result ? await loadText(store, input.result.content) : undefined;
      const stdin = JSON.stringify({
        session_id: input.sessionId,
        cwd: input.workdir,
        hook_event_name: input.event,
        ...(input.tool
          ? { tool_name: input.tool.name, tool_input: input.tool.input, tool_use_id: input.tool.toolUseId }
          : {}),
        ...(input.result
          ? {
              tool_response: {
                ...(input.result.filePath ? { filePath: input.result.filePath } : {}),
                success: !input.result.isError,
                content: resultText,
              },
            }
          : {}),
        ...(input.prompt ? { prompt: await loadText(store, input.prompt) } : {}),
      });
      const verdicts: (HookVerdict & { command: string })[] = [];
      for (const hook of input.hooks) {
        const progress = new CallProgress(`${input.event} hook`, hook.command);
        const run = await runHook(hook, { workdir: input.workdir, stdin, sandbox, session: input.sandbox }, progress);
        verdicts.push({ command: hook.command, ...interpretToolHook(input.event, hook.command, run) });
      }
      const { feedback, ...combined } = combineVerdicts(verdicts);
      const outcome: ToolHookOutcome = { ...combined };
      if (feedback && input.event === 'PostToolUse' && resultText !== undefined) {
        outcome.content = await storeText(
          store,
          `${resultText}\n\n<system-reminder>\nPostToolUse hook feedback:\n${feedback}\n</system-reminder>`,
        );
      }
      if (feedback && input.event === 'UserPromptSubmit') outcome.context = feedback;
      // The workspace as the hooks left it (not when cancelled: the workflow then takes it).
      if (input.snapshotRef && !context.cancellationSignal.aborted) {
        const snapshotting = new CallProgress(`${input.event} hooks`, SNAPSHOT_AFTER_HOOKS);
        const snapshot = await whileHeartbeating(
          () => snapshotOver(store, input.workdir, input.snapshotRef!, context.cancellationSignal),
          snapshotting,
        );
        if (snapshot) outcome.snapshot = snapshot;
      }
      return outcome;
    },
  };
}
