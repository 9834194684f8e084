/**
 * runToolHooks: the hooks of one event (PreToolUse, PostToolUse, UserPromptSubmit, SessionStart,
 * PreCompact, …; Stop has runStopHooks) that matched one call, prompt or moment, run in the
 * session's sandbox in the workdir, one after the other, each with its timeout, with Claude Code's
 * JSON on stdin; then its `prompt` hooks, judged by the small model. hook-output.ts and
 * event-output.ts read what each says; this activity puts PostToolUse feedback after the call's
 * result (or in place of it: `updatedToolOutput`), stored like any result, plans a PreToolUse
 * hook's `updatedInput` again as the call it makes and, when asked, snapshots what the hooks
 * changed (a formatter rewrites the file the call just wrote).
 */
import { Context } from '@temporalio/activity';
import type { PlannedToolUse, ToolHookResult } from '../../shared/activity-io';
import type { ToolHookEvent } from '../../shared/hooks';
import type { ToolHookInput } from '../../shared/hook-runs';
import { CallProgress, whileHeartbeating } from '../heartbeat';
import type { ModelApi } from '../model/anthropic';
import { planMcpCall } from '../mcp/mcp-catalog';
import { TOOLS } from '../tools/registry';
import type { CommandSandbox } from '../../sandbox/command-sandbox';
import { type ContentStore, loadText, storeText } from '../../store/content-store';
import { snapshotOver } from '../workspace/workspace-activities';
import { combineVerdicts, type CombinedUpdates, type HookVerdict, interpretToolHook } from './hook-output';
import { interpretEventHook } from './event-output';
import { hookInputFields, resultFields } from './hook-input';
import { runPromptHooks } from './prompt-hooks';
import { runHook, SNAPSHOT_AFTER_HOOKS } from './run-hook';
import { withTranscript } from './transcript-file';

/** The events hook-output.ts reads; the others are event-output.ts's. */
const EVENTS_OF_HOOK_OUTPUT: readonly ToolHookEvent[] = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit'];
/** Feedback of these goes after the call's result. */
const AFTER_CALL: readonly ToolHookEvent[] = ['PostToolUse', 'PostToolUseFailure'];
/** Feedback of these is context for the model. */
const WITH_CONTEXT: readonly ToolHookEvent[] = ['UserPromptSubmit', 'SessionStart', 'SubagentStart'];

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
      const fields = {
        ...hookInputFields(input),
        ...resultFields(input, resultText),
        ...(input.prompt ? { prompt: await loadText(store, input.prompt) } : {}),
      };
      const verdicts = await withTranscript(store, input, async (transcript) => {
        const stdin = JSON.stringify(transcript ? { transcript_path: transcript.path, ...fields } : fields);
        const where = {
          workdir: input.workdir,
          stdin,
          sandbox,
          session: input.sandbox,
          ...(transcript ? { readOnlyBinds: [transcript.bind] } : {}),
        };
        const said: (HookVerdict & { command: string })[] = [];
        for (const hook of input.hooks) {
          const run = await runHook(hook, where, new CallProgress(`${input.event} hook`, hook.command));
          const interpret = EVENTS_OF_HOOK_OUTPUT.includes(input.event) ? interpretToolHook : interpretEventHook;
          said.push({ command: hook.command, ...interpret(input.event, hook.command, run) });
        }
        if (input.prompts?.length)
          said.push(...(await runPromptHooks(input.event, input.prompts, stdin, { api, smallModel })));
        return said;
      });
      const { feedback, updatedInput, updatedOutput, updatedMcpOutput, ...combined } = combineVerdicts(verdicts);
      const outcome: ToolHookResult = { ...combined };
      if (AFTER_CALL.includes(input.event) && resultText !== undefined) {
        // `updatedToolOutput` is PostToolUse's (Claude Code: every tool; the older `updatedMCPToolOutput` MCP calls only).
        const replaced =
          input.event === 'PostToolUse'
            ? (updatedOutput ?? (input.tool?.mcp ? updatedMcpOutput : undefined))
            : undefined;
        if (replaced !== undefined) outcome.outputReplaced = true;
        if (feedback !== undefined || replaced !== undefined)
          outcome.content = await storeText(store, withFeedback(input.event, replaced ?? resultText, feedback));
      }
      if (feedback && WITH_CONTEXT.includes(input.event)) outcome.context = feedback;
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

function withFeedback(event: ToolHookEvent, text: string, feedback: string | undefined): string {
  return feedback ? `${text}\n\n<system-reminder>\n${event} hook feedback:\n${feedback}\n</system-reminder>` : text;
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
