import {
  addUsage,
  contentChars,
  contentPreview,
  type ConversationMessage,
  conversationChars,
  textOf,
  toolErrorResult,
  toolUseError,
  ZERO_USAGE,
} from '../../../src/shared/conversation';

describe('the conversation helpers', () => {
  test('usage adds up from zero', () => {
    const one = { inputTokens: 10, outputTokens: 2, cacheCreationInputTokens: 3, cacheReadInputTokens: 4 };
    expect(addUsage(addUsage(ZERO_USAGE, one), one)).toEqual({
      inputTokens: 20,
      outputTokens: 4,
      cacheCreationInputTokens: 6,
      cacheReadInputTokens: 8,
    });
  });

  test('lengths count inline and stored text alike', () => {
    const messages: ConversationMessage[] = [
      { role: 'user', kind: 'text', content: { text: 'abcd' } },
      { role: 'assistant', kind: 'assistant', ref: 'sha256:a', chars: 100 },
      {
        role: 'user',
        kind: 'tool_results',
        results: [{ toolUseId: 't', isError: false, content: { ref: 'sha256:r', chars: 1000, preview: 'p' } }],
      },
    ];
    expect(contentChars({ text: 'abc' })).toBe(3);
    expect(conversationChars(messages)).toBe(1104);
  });

  test('previews, the text of a reply, and tool errors as the model reads them', () => {
    expect(contentPreview({ text: 'x'.repeat(500) })).toHaveLength(300);
    expect(contentPreview({ ref: 'sha256:r', chars: 1000, preview: 'start…' })).toBe('start…');
    expect(
      textOf([{ type: 'text', text: 'a' }, { type: 'tool_use' }, { type: 'thinking' }, { type: 'text', text: 'b' }]),
    ).toBe('a\nb');
    expect(
      textOf(
        [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        ' ',
      ),
    ).toBe('a b');
    expect(toolUseError('no')).toBe('<tool_use_error>no</tool_use_error>');
    expect(toolErrorResult({ id: 'toolu_1', name: 'Edit' }, 'denied')).toEqual({
      toolUseId: 'toolu_1',
      isError: true,
      content: { text: '<tool_use_error>denied</tool_use_error>' },
      toolName: 'Edit',
    });
  });
});
