/**
 * Plan mode and questions to the user, as Claude Code has them: the AskUserQuestion input
 * (shared by the tool's schema and the `answerQuestion` update's check), what waits in the
 * `state` query, and the tool_result texts the workflow gives the model. Pure: imported by the
 * workflow, the activities and the CLI alike.
 *
 * The wording follows Claude Code's results (the model is trained on them); where ours does more
 * or less (a plan approved into a named mode, a reason a person gave), it says so in the same tone.
 */
import { z } from 'zod';
import type { PermissionMode } from './permission-modes';

/** One option of a question: Claude Code's `{label, description, preview?}`. */
export const questionOptionSchema = z
  .object({
    label: z.string().describe('The display text for this option (1-5 words)'),
    description: z.string().describe('What this option means or what will happen if chosen'),
    preview: z.string().optional().describe('Optional preview content shown when this option is focused'),
  })
  .strict();

/** One question: 2–4 options; `multiSelect` as Claude Code declares it (required). */
export const questionSchema = z
  .object({
    question: z.string().describe('The complete question to ask the user, ending with a question mark'),
    header: z.string().describe('Very short label displayed as a chip/tag (max 12 chars)'),
    options: z.array(questionOptionSchema).min(2).max(4).describe('The available choices (2-4)'),
    multiSelect: z.boolean().describe('Set to true to allow the user to select multiple options'),
  })
  .strict();

export type Question = z.infer<typeof questionSchema>;

/** A question waiting for `answerQuestion` (query `state`, field `pendingQuestions`). */
export interface PendingQuestion {
  toolUseId: string;
  questions: Question[];
}

/** Update `answerQuestion`: each question's text → the answer (an option's label, several joined by ", ", or free text). */
export interface QuestionAnswer {
  toolUseId: string;
  answers: Record<string, string>;
}

/** What update `answerQuestion` returns. */
export interface QuestionReceipt {
  toolUseId: string;
  answered: number;
}

/** The modes a plan may be approved into (`approveTool`'s `mode`): every mode but `plan` itself. */
export const MODES_AFTER_PLAN = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk'] as const;
export type ModeAfterPlan = (typeof MODES_AFTER_PLAN)[number];

/** At most this much of a plan is shown in `state.pendingApprovals` (the model's own copy is whole). */
export const PLAN_SHOWN_CHARS = 32_000;

/** EnterPlanMode's result. */
export const ENTERED_PLAN_MODE = [
  'Entered plan mode. You should now focus on exploring the codebase and designing an implementation approach.',
  '',
  'In plan mode, you should:',
  '1. Thoroughly explore the codebase to understand existing patterns',
  '2. Identify similar features and architectural approaches',
  '3. Consider multiple approaches and their trade-offs',
  '4. Use AskUserQuestion if you need to clarify the approach',
  '5. Design a concrete implementation strategy',
  '6. When ready, use ExitPlanMode to present your plan for approval',
  '',
  'Remember: DO NOT write or edit any files yet. This is a read-only exploration and planning phase.',
].join('\n');

/** ExitPlanMode outside plan mode: an is_error result, as Claude Code answers it. */
export const NOT_IN_PLAN_MODE =
  'You are not in plan mode. This tool is only for exiting plan mode after writing a plan. If your plan was already approved, continue with implementation.';

/** ExitPlanMode approved: the session goes on in `mode`. */
export function planApprovedText(plan: string, mode: PermissionMode, feedback?: string): string {
  return [
    'User has approved your plan. You can now start coding. Start with updating your todo list if applicable',
    '',
    `Permission mode is now ${mode}.`,
    ...(feedback ? ['', `The user said: ${feedback}`] : []),
    ...(plan ? ['', '## Approved Plan:', plan] : []),
  ].join('\n');
}

/** ExitPlanMode denied: still in plan mode. */
export function planRejectedText(reason?: string): string {
  return [
    "The user doesn't want to proceed with this tool use. The plan was not approved: you are still in plan mode, so do not edit files or run commands that change anything.",
    reason
      ? `To tell you how to proceed, the user said:\n${reason}`
      : 'STOP what you are doing and wait for the user to tell you how to proceed.',
  ].join('\n');
}

/** ExitPlanMode not answered within the approval timeout: still in plan mode. */
export const PLAN_NOT_ANSWERED =
  'Nobody approved the plan in time, so you are still in plan mode. Do not edit files or run commands that change anything; end your turn with the plan, or wait for the user.';

/** A call that would change something, refused while the session is in plan mode. */
export function refusedInPlanMode(toolName: string): string {
  return `Plan mode is active: ${toolName} is not a read-only tool, so it was not run. Only read-only tools run until the user approves your plan: present it with ExitPlanMode.`;
}

/** AskUserQuestion answered, as Claude Code words it. */
export function questionsAnsweredText(answers: Record<string, string>): string {
  const pairs = Object.entries(answers).map(([question, answer]) => `"${question}"="${answer}"`);
  return `User has answered your questions: ${pairs.join(', ')}. You can now continue with the user's answers in mind.`;
}

/**
 * The plan ExitPlanMode presents: `input.plan` when the model sends it (Claude Code's older
 * versions declared it; models trained on them still send it), else the text of the assistant
 * message that made the call (newer Claude Code writes the plan to a file first; we have no plan
 * file, so the model's message is where its plan is).
 */
export function planOf(input: unknown, messageText: string): string {
  const given = (input as { plan?: unknown } | null)?.plan;
  return typeof given === 'string' && given.trim() ? given : messageText.trim();
}

/**
 * What is wrong with an answer to a pending question, or undefined: every question answered
 * (by its text), no other keys, each answer a non-empty string.
 */
export function answerProblem(pending: PendingQuestion, answers: Record<string, string>): string | undefined {
  const asked = pending.questions.map((question) => question.question);
  const unknown = Object.keys(answers).filter((key) => !asked.includes(key));
  if (unknown.length)
    return `not asked: ${unknown.map((key) => JSON.stringify(key)).join(', ')}; asked: ${asked.map((q) => JSON.stringify(q)).join(', ')}`;
  const missing = asked.filter((question) => !(answers[question] ?? '').trim());
  if (missing.length) return `no answer to ${missing.map((question) => JSON.stringify(question)).join(', ')}`;
  return undefined;
}
