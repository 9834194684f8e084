import { z } from 'zod';
import { defineTool, ToolError } from './tool';

/**
 * ExitPlanMode, Claude Code's input: `allowedPrompts` (deprecated there, accepted here and
 * ignored) and any other field (an index signature). Older Claude Code versions declared `plan`,
 * and models trained on them still send it: when they do it is the plan; otherwise the plan is
 * the text of the assistant message that made the call (shared/plan-mode.ts `planOf`).
 *
 * In plan mode the call waits, durably, for a person's `approveTool` (with the mode to go on in);
 * outside plan mode it is an is_error result. The workflow carries it out (`sessionControl`).
 */
export const exitPlanModeTool = defineTool({
  name: 'ExitPlanMode',
  description: [
    'Use this tool when you are in plan mode and have finished planning: it presents your plan to the user for approval, and the session leaves plan mode once they approve.',
    'Write the plan in your message (concise, the steps and the files you will change) or pass it as `plan`, then call this tool.',
    'Only for tasks that need code changes; not for research or questions. Outside plan mode it fails.',
  ].join('\n'),
  schema: z.looseObject({
    allowedPrompts: z
      .array(
        z
          .object({
            tool: z.literal('Bash').describe('The tool this prompt applies to'),
            prompt: z.string().describe('Semantic description of the action, e.g. "run tests"'),
          })
          .strict(),
      )
      .optional()
      .describe('Deprecated: no longer used.'),
  }),
  needsApproval: false,
  isConcurrencySafe: () => false,
  cancelsLaterCallsOnError: false,
  resultsClearable: false,
  readsFile: false,
  changesFiles: false,
  labelsItself: true,
  sessionControl: 'exit_plan_mode',
  subject: () => '',
  summarize: () => 'ExitPlanMode',
  async execute() {
    throw new ToolError('ExitPlanMode waits for a person: the workflow carries it out, not a tool activity.');
  },
});
