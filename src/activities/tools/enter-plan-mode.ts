import { z } from 'zod';
import { ENTERED_PLAN_MODE } from '../../shared/plan-mode';
import { defineTool } from './tool';

/**
 * EnterPlanMode, Claude Code's `{}`: the session switches to permission mode `plan` (read-only
 * tools only, until a person approves ExitPlanMode). No person is asked to enter it: it only
 * ever makes the session stricter. The workflow carries it out (`sessionControl`), no activity.
 */
export const enterPlanModeTool = defineTool({
  name: 'EnterPlanMode',
  description: [
    'Use this tool proactively when you are about to start a non-trivial implementation task: getting the user to sign off on your approach before writing code prevents wasted effort.',
    'It switches the session into plan mode, where only read-only tools run (Read, Glob, Grep, read-only sub-agents): explore the codebase, design an implementation approach, ask with AskUserQuestion where the approach is unclear, then present the plan with ExitPlanMode for the user to approve.',
    'Skip it for simple, clear tasks (a small fix, a specific request): just do them.',
  ].join('\n'),
  // Claude Code's `EnterPlanModeInput {}`: zod infers an empty strict object as `Record<string, never>`,
  // which is the same input (only `{}`), typed as Claude Code types it.
  schema: z.object({}).strict() as z.ZodType<Record<never, never>, Record<never, never>>,
  needsApproval: false,
  isConcurrencySafe: () => false,
  cancelsLaterCallsOnError: false,
  resultsClearable: false,
  readsFile: false,
  changesFiles: false,
  labelsItself: true,
  sessionControl: 'enter_plan_mode',
  subject: () => '',
  summarize: () => 'EnterPlanMode',
  // Never called: the workflow switches the mode itself. A direct call says what it would.
  async execute() {
    return { text: ENTERED_PLAN_MODE };
  },
});
