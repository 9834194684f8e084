/** The texts and checks of plan mode and questions (shared/plan-mode.ts). */
import {
  answerProblem,
  planApprovedText,
  planOf,
  planRejectedText,
  questionsAnsweredText,
} from '../../../src/shared/plan-mode';

const pending = {
  toolUseId: 'toolu_ask',
  questions: [
    {
      question: 'Which format?',
      header: 'Format',
      options: [
        { label: 'Markdown', description: '' },
        { label: 'JSON', description: '' },
      ],
      multiSelect: false,
    },
    {
      question: 'Which parts?',
      header: 'Parts',
      options: [
        { label: 'API', description: '' },
        { label: 'CLI', description: '' },
      ],
      multiSelect: true,
    },
  ],
};

test("the plan is input.plan when the model sends it, else its message's text", () => {
  expect(planOf({ plan: '1. Edit a.txt' }, 'the message')).toBe('1. Edit a.txt');
  expect(planOf({}, '  the message\n')).toBe('the message');
  expect(planOf({ plan: '  ' }, 'the message')).toBe('the message');
  expect(planOf(null, 'the message')).toBe('the message');
});

test('every question answered by its text, nothing else', () => {
  expect(answerProblem(pending, { 'Which format?': 'JSON', 'Which parts?': 'API, CLI' })).toBeUndefined();
  expect(answerProblem(pending, { 'Which format?': 'JSON' })).toBe('no answer to "Which parts?"');
  expect(answerProblem(pending, { 'Which format?': 'JSON', 'Which parts?': 'API', Other: 'x' })).toMatch(
    /^not asked: "Other"/,
  );
});

test('the results as Claude Code words them', () => {
  expect(questionsAnsweredText({ 'Which format?': 'JSON', 'Which parts?': 'API, CLI' })).toBe(
    'User has answered your questions: "Which format?"="JSON", "Which parts?"="API, CLI". You can now continue with the user\'s answers in mind.',
  );
  expect(planApprovedText('1. Edit a.txt', 'acceptEdits')).toBe(
    'User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\nPermission mode is now acceptEdits.\n\n## Approved Plan:\n1. Edit a.txt',
  );
  expect(planRejectedText('Keep the old path')).toContain(
    'To tell you how to proceed, the user said:\nKeep the old path',
  );
  expect(planRejectedText()).toContain('you are still in plan mode');
});
