/**
 * runToolHooks: the PreToolUse, PostToolUse or UserPromptSubmit hooks that matched one call (or
 * prompt), run in the session's sandbox in the workdir, one after the other, each with its
 * timeout, with Claude Code's JSON on stdin; then its `prompt` hooks, judged by the small model.
 * hook-output.ts reads what each says; this activity puts PostToolUse feedback after the call's
 * result (or in place of it: `updatedToolOutput`), stored like any result, plans a PreToolUse
 * hook's `updatedInput` again as the call it makes and, when asked, snapshots what the hooks
 * changed (a formatter rewrites the file the call just wrote).
 */
import { Context } from '@temporalio/activity';
import type { PlannedToolUse, ToolHookResult } from '../../shared/activity-io';
import type { ToolHookInput } from '../../shared/hooks';
import { CallProgress, whileHeartbeating } from '../heartbeat';
import type { ModelApi } from '../model/anthropic';
import { planMcpCall } from '../mcp/mcp-catalog';
import { TOOLS } from '../tools/registry';
import type { CommandSandbox } from '../../sandbox/command-sandbox';
import { type ContentStore, loadText, storeText } from '../../store/content-store';
import { snapshotOver } from '../workspace/workspace-activities';
import { combineVerdicts, type CombinedUpdates, type HookVerdict, interpretToolHook } from './hook-output';
import { runPromptHooks } from './prompt-hooks';
import { runHook, SNAPSHOT_AFTER_HOOKS } from './run-hook';

export interface ToolHookDeps {
  sandbox: CommandSandbox;
  store: ContentStore;
  /** For `prompt` hooks: the Messages API and the small model that judges them. Without: they are reported, not run. */
  api?: ModelApi;
  smallModel?: string;
}

export function createToolHookActivities({ sandbox, store, api, smallModel }: ToolHookDeps) {
  return {
    async runToolHooks(input: ToolHookInput): Promise<ToolHookResult> {
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
      if (input.prompts?.length)
        verdicts.push(...(await runPromptHooks(input.event, input.prompts, stdin, { api, smallModel })));
      const { feedback, updatedInput, updatedOutput, updatedMcpOutput, ...combined } = combineVerdicts(verdicts);
      const outcome: ToolHookResult = { ...combined };
      if (input.event === 'PostToolUse' && resultText !== undefined) {
        const replaced = updatedOutput ?? (input.tool?.mcp ? updatedMcpOutput : undefined);
        if (replaced !== undefined) outcome.outputReplaced = true;
        if (feedback !== undefined || replaced !== undefined)
          outcome.content = await storeText(store, withFeedback(replaced ?? resultText, feedback));
      }
      if (feedback && input.event === 'UserPromptSubmit') outcome.context = feedback;
      if (input.event === 'PreToolUse' && input.tool && updatedInput && outcome.decision !== 'deny')
        outcome.updatedCall = await replanned(input.tool, input.workdir, updatedInput);
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

function withFeedback(text: string, feedback: string | undefined): string {
  return feedback ? `${text}\n\n<system-reminder>\nPostToolUse hook feedback:\n${feedback}\n</system-reminder>` : text;
}

/**
 * The call a hook's `updatedInput` makes, planned as the model's own calls are (validated against
 * the tool's schema, its rules worked out for this input): invalid, its result names the hook.
 */
async function replanned(
  tool: NonNullable<ToolHookInput['tool']>,
  workdir: string,
  update: NonNullable<CombinedUpdates['updatedInput']>,
): Promise<PlannedToolUse> {
  const block = { id: tool.toolUseId, name: tool.name, input: update.input };
  const call = tool.mcp ? planMcpCall(block, tool.mcp) : await TOOLS.plan(block, workdir, [tool.name]);
  if (call.plan.ok) return call;
  return {
    ...call,
    plan: {
      ...call.plan,
      errorText: `The PreToolUse hook \`${update.command}\` changed this call's input to one that is not valid, so it was not run:\n${call.plan.errorText}`,
    },
  };
}
