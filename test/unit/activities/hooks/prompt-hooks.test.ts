import type { ModelApi } from '../../../../src/activities/model/anthropic';
import { promptWithArguments, runPromptHooks } from '../../../../src/activities/hooks/prompt-hooks';

/** A Messages API that answers every request with `answer` and keeps what it was asked. */
function answering(answer: string | Error) {
  const asked: { model: string; content: unknown }[] = [];
  const api = {
    stream: async (params: { model: string; messages: { content: unknown }[] }) => {
      asked.push({ model: params.model, content: params.messages[0]!.content });
      if (answer instanceof Error) throw answer;
      return { kind: 'message', message: { content: [{ type: 'text', text: answer }] } };
    },
  } as unknown as ModelApi;
  return { api, asked };
}

test('$ARGUMENTS is the hook input JSON; without it the input follows the prompt', () => {
  expect(promptWithArguments('Safe? $ARGUMENTS (really: $ARGUMENTS)', '{"a":1}')).toBe(
    'Safe? {"a":1} (really: {"a":1})',
  );
  expect(promptWithArguments('Safe?', '{"a":1}')).toBe('Safe?\n\n{"a":1}');
});

test('the small model (or the hook’s own) judges each hook; its {"ok": false} denies', async () => {
  const { api, asked } = answering('{"ok": false, "reason": "force push"}');
  const verdicts = await runPromptHooks(
    'PreToolUse',
    [{ prompt: 'Safe? $ARGUMENTS' }, { prompt: 'Allowed here?', model: 'claude-opus-5' }],
    '{"tool_name":"Bash"}',
    { api, smallModel: 'claude-haiku-5-5' },
  );
  expect(asked).toEqual([
    { model: 'claude-haiku-5-5', content: 'Safe? {"tool_name":"Bash"}' },
    { model: 'claude-opus-5', content: 'Allowed here?\n\n{"tool_name":"Bash"}' },
  ]);
  expect(verdicts).toEqual([
    { command: 'prompt "Safe? $ARGUMENTS"', decision: 'deny', reason: 'force push' },
    { command: 'prompt "Allowed here?"', decision: 'deny', reason: 'force push' },
  ]);
});

test('a failed request, or a worker without a model, decides nothing and is reported', async () => {
  const { api } = answering(new Error('overloaded'));
  const [failed] = await runPromptHooks('PostToolUse', [{ prompt: 'Ok?' }], '{}', { api, smallModel: 'm' });
  expect(failed).toEqual({ command: 'prompt "Ok?"', report: expect.stringContaining('failed; ignored: overloaded') });
  const [noModel] = await runPromptHooks('PostToolUse', [{ prompt: 'Ok?' }], '{}', {});
  expect(noModel!.report).toContain('no model for prompt hooks');
});
