/**
 * runToolHooks: the hooks of one event (PreToolUse, PostToolUse, UserPromptSubmit, SessionStart,
 * PreCompact, …; Stop has runStopHooks) that matched one call, prompt or moment, run in the session's sandbox in the workdir, one after the other, each with its
 * timeout, with Claude Code's JSON on stdin. hook-output.ts reads what each says; this activity
 * puts PostToolUse feedback after the call's result (stored like any result) and, when asked,
 * snapshots what the hooks changed (a formatter rewrites the file the call just wrote).
 */
import { Context } from '@temporalio/activity';
import type { ToolHookEvent, ToolHookInput, ToolHookOutcome } from '../../shared/hooks';
import { CallProgress, whileHeartbeating } from '../heartbeat';
import type { CommandSandbox } from '../../sandbox/command-sandbox';
import { type ContentStore, loadText, storeText } from '../../store/content-store';
import { snapshotOver } from '../workspace/workspace-activities';
import { combineVerdicts, type HookVerdict, interpretToolHook } from './hook-output';
import { interpretEventHook } from './event-output';
import { hookInputFields, resultFields } from './hook-input';
import { runHook, SNAPSHOT_AFTER_HOOKS } from './run-hook';
import { withTranscript } from './transcript-file';

/** The events hook-output.ts reads; the others are event-output.ts's. */
const EVENTS_OF_HOOK_OUTPUT: readonly ToolHookEvent[] = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit'];
/** Feedback of these goes after the call's result. */
const AFTER_CALL: readonly ToolHookEvent[] = ['PostToolUse', 'PostToolUseFailure'];
/** Feedback of these is context for the model. */
const WITH_CONTEXT: readonly ToolHookEvent[] = ['UserPromptSubmit', 'SessionStart', 'SubagentStart'];

export function createToolHookActivities({ sandbox, store }: { sandbox: CommandSandbox; store: ContentStore }) {
  return {
    async runToolHooks(input: ToolHookInput): Promise<ToolHookOutcome> {
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
        return said;
      });
      const { feedback, ...combined } = combineVerdicts(verdicts);
      const outcome: ToolHookOutcome = { ...combined };
      if (feedback && AFTER_CALL.includes(input.event) && resultText !== undefined) {
        outcome.content = await storeText(
          store,
          `${resultText}\n\n<system-reminder>\n${input.event} hook feedback:\n${feedback}\n</system-reminder>`,
        );
      }
      if (feedback && WITH_CONTEXT.includes(input.event)) outcome.context = feedback;
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
