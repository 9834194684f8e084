/** What each message takes, and the problem its sender is told. */
import {
  APPROVE_TOOL_UPDATE,
  checkMessageInput,
  type MessageInput,
  DIFF_QUERY,
  INTERRUPT_SIGNAL,
  parseMessageInput,
  REWIND_UPDATE,
  SUB_AGENT_APPROVALS,
  TRANSCRIPT_QUERY,
  USER_MESSAGE,
} from '../../../src/shared/message-inputs';

const problemOf = (args: unknown[], input: MessageInput<unknown> = USER_MESSAGE) => {
  const parsed = parseMessageInput(input, args);
  return parsed.ok ? undefined : parsed.problem;
};

describe('inputs that are not an object say what the message takes', () => {
  test.each([
    [[], 'no input; userMessage takes {"text":"…"}'],
    [[null], 'got null; userMessage takes {"text":"…"}'],
    [[[]], 'got an array; userMessage takes {"text":"…"}'],
    [[5], 'got a number; userMessage takes {"text":"…"}'],
    [['hi'], 'got a string ("hi"); userMessage takes {"text":"…"}'],
    [[{ text: 'a' }, { text: 'b' }], 'got 2 inputs; userMessage takes {"text":"…"}'],
  ])('%j', (args, problem) => {
    expect(problemOf(args)).toBe(problem);
  });
});

test('fields: the wrong type, a blank text, a missing or unknown field, each by name', () => {
  expect(problemOf([{ text: 5 }])).toBe('text: expected string, received number');
  expect(problemOf([{ text: '  ' }])).toBe('text: must be a non-empty string');
  expect(problemOf([{ txt: 'hi' }])).toBe('text: required; unknown field(s): txt');
  const approval = (fields: object) => problemOf([{ toolUseId: 'toolu_1', ...fields }], APPROVE_TOOL_UPDATE);
  expect(approval({ decision: 'allow', feedback: 42 })).toBe('feedback: expected string, received number');
  expect(approval({ decision: 'maybe' })).toBe('decision: expected one of "allow"|"deny"');
  expect(problemOf([{ turn: 1.5 }], REWIND_UPDATE)).toBe('turn: expected int, received number');
  const report = { workflowId: 'w', description: 'd', pending: [{ toolUseId: 'toolu_1' }] };
  expect(problemOf([report], SUB_AGENT_APPROVALS)).toBe('pending.0.name: required; pending.0.summary: required');
});

test('valid inputs come back as sent (a message keeps its spaces); optional ones may be left out or null', () => {
  expect(parseMessageInput(USER_MESSAGE, [{ text: ' Use tabs ' }])).toEqual({
    ok: true,
    value: { text: ' Use tabs ' },
  });
  expect(parseMessageInput(INTERRUPT_SIGNAL, [])).toEqual({ ok: true, value: undefined });
  expect(parseMessageInput(INTERRUPT_SIGNAL, [null])).toEqual({ ok: true, value: undefined });
  expect(parseMessageInput(TRANSCRIPT_QUERY, [{ fromIndex: 3 }])).toEqual({ ok: true, value: { fromIndex: 3 } });
  const agent = { workflowId: 'c', description: 'd' };
  const report = {
    workflowId: 'w',
    description: 'd',
    pending: [{ toolUseId: 'toolu_1', name: 'Bash', summary: 'Bash ls', input: { command: 'ls' }, agent }],
  };
  expect(parseMessageInput(SUB_AGENT_APPROVALS, [report])).toEqual({ ok: true, value: report });
});

test('validators and queries get the problem as an error naming the message', () => {
  const refused = 'Invalid diff query input: fromTurn: expected number to be >=0';
  expect(() => checkMessageInput(DIFF_QUERY, [{ fromTurn: -1 }])).toThrow(refused);
  expect(checkMessageInput(DIFF_QUERY, [{ toTurn: 2 }])).toEqual({ toTurn: 2 });
});
