import { parseAnswerArguments } from '../../../../src/cli/commands/answer';
import { answersByQuestion } from '../../../../src/cli/session-steering';
import { cli } from '../cli-output';

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

test('--answer pairs or --json, one of them; wrong arguments exit 2', async () => {
  expect(parseAnswerArguments(['agent-1', 'toolu_ask', '--answer', 'Format=JSON', '--answer', 'Parts = API'])).toEqual({
    workflowId: 'agent-1',
    toolUseId: 'toolu_ask',
    given: {
      pairs: [
        ['Format', 'JSON'],
        ['Parts', 'API'],
      ],
    },
  });
  expect(parseAnswerArguments(['agent-1', 'toolu_ask', '--json', '{"Which format?":"JSON"}']).given).toEqual({
    json: { 'Which format?': 'JSON' },
  });
  expect((await cli(['answer', 'agent-1'])).code).toBe(2);
  expect((await cli(['answer', 'agent-1', 'toolu_ask'])).code).toBe(2);
  expect((await cli(['answer', 'agent-1', 'toolu_ask', '--answer', 'no-equals'])).stderr).toContain(
    "--answer takes '<header or question>=<answer>'",
  );
  expect((await cli(['answer', 'agent-1', 'toolu_ask', '--json', '[1]'])).code).toBe(2);
});

test('a pair names its question by header (any case) or text; two answers to one question are joined', () => {
  expect(
    answersByQuestion(pending, [
      ['format', 'JSON'],
      ['Which parts?', 'API'],
      ['Parts', 'CLI'],
    ]),
  ).toEqual({ 'Which format?': 'JSON', 'Which parts?': 'API, CLI' });
  expect(() => answersByQuestion(pending, [['Colour', 'Blue']])).toThrow(
    'No question "Colour" in toolu_ask; its questions: Format (Which format?), Parts (Which parts?)',
  );
});
