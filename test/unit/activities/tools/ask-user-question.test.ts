/** AskUserQuestion: Claude Code's input, 1–4 questions of 2–4 options; the workflow waits for the answers. */
import { askUserQuestionTool } from '../../../../src/activities/tools/ask-user-question';
import { TOOLS } from '../../../../src/activities/tools/registry';
import { inputError, toolWorkdir } from '../../../support/tool-workdir';

const option = (label: string) => ({ label, description: `${label}, explained` });
const question = {
  question: 'Which format?',
  header: 'Format',
  options: [option('Markdown'), option('JSON')],
  multiSelect: false,
};

test('1-4 questions of 2-4 options, each with its header and multiSelect', () => {
  expect(inputError('AskUserQuestion', { questions: [question] })).toBeUndefined();
  expect(
    inputError('AskUserQuestion', { questions: [question], answers: { 'Which format?': 'JSON' }, metadata: {} }),
  ).toBeUndefined();
  expect(inputError('AskUserQuestion', { questions: [] })).toContain('`questions`');
  expect(inputError('AskUserQuestion', { questions: [question, question, question, question, question] })).toContain(
    '`questions`',
  );
  expect(inputError('AskUserQuestion', { questions: [{ ...question, options: [option('Only')] }] })).toContain(
    '`questions.0.options`',
  );
  const { multiSelect: _left, ...withoutMultiSelect } = question;
  expect(inputError('AskUserQuestion', { questions: [withoutMultiSelect] })).toContain('questions.0.multiSelect');
});

test('its summary names the headers; its plan says the workflow waits for the answers', async () => {
  expect(askUserQuestionTool.summarize({ questions: [question, { ...question, header: 'Scope' }] })).toBe(
    'AskUserQuestion Format, Scope',
  );
  const planned = await TOOLS.plan(
    { id: 'toolu_1', name: 'AskUserQuestion', input: { questions: [question] } },
    toolWorkdir('ask').path,
    ['AskUserQuestion'],
  );
  expect(planned.plan).toMatchObject({ ok: true, rules: { sessionControl: 'ask_user_question' } });
});
