import { z } from 'zod';
import { questionSchema } from '../../shared/plan-mode';
import { defineTool, ToolError } from './tool';

/**
 * AskUserQuestion, Claude Code's input: 1–4 questions of 2–4 options each, and the fields its
 * permission layer fills in (`answers`, `annotations`, `metadata`: accepted, not used; the answers
 * come from a person through the `answerQuestion` update). The call waits for them durably, for
 * days if need be, across worker restarts; the workflow carries it out (`sessionControl`).
 */
export const askUserQuestionTool = defineTool({
  name: 'AskUserQuestion',
  description: [
    'Asks the user questions during the session and waits for the answers. Use it to gather preferences or requirements, clarify ambiguous instructions, or get decisions on implementation choices as you work.',
    '- 1-4 questions, each with 2-4 options; users can always answer in their own words instead of picking an option.',
    '- Set multiSelect to true when several options may be chosen together.',
    '- If you recommend an option, make it the first one and add "(Recommended)" at the end of its label.',
    '- In plan mode, use it to clarify requirements before finishing the plan, not to ask whether the plan is ready (that is ExitPlanMode).',
  ].join('\n'),
  schema: z
    .object({
      questions: z.array(questionSchema).min(1).max(4).describe('Questions to ask the user (1-4 questions)'),
      answers: z
        .record(z.string(), z.string())
        .optional()
        .describe('User answers collected by the permission component'),
      annotations: z
        .record(z.string(), z.object({ preview: z.string().optional(), notes: z.string().optional() }).strict())
        .optional()
        .describe('Optional per-question annotations from the user'),
      metadata: z
        .object({ source: z.string().optional() })
        .strict()
        .optional()
        .describe('Optional metadata for tracking and analytics purposes'),
    })
    .strict(),
  needsApproval: false,
  isConcurrencySafe: () => false,
  cancelsLaterCallsOnError: false,
  resultsClearable: false,
  readsFile: false,
  changesFiles: false,
  labelsItself: true,
  sessionControl: 'ask_user_question',
  subject: (input) => input.questions.map((question) => question.header).join(', '),
  summarize: (input) => `AskUserQuestion ${input.questions.map((question) => question.header).join(', ')}`,
  async execute() {
    throw new ToolError('AskUserQuestion waits for a person: the workflow carries it out, not a tool activity.');
  },
});
