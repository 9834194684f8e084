import {
  collapse,
  cutPoint,
  estimateConversationTokens,
  fitForSummary,
  microcompact,
  snip,
  stripMedia,
} from '../../../../src/activities/context/context-edits';
import type { ConversationMessage } from '../../../../src/shared/conversation';
import { CLEARED_TOOL_RESULT } from '../../../../src/shared/limits';

const user = (text: string): ConversationMessage => ({ role: 'user', kind: 'text', content: { text } });
const assistant = (ref: string): ConversationMessage => ({ role: 'assistant', kind: 'assistant', ref, chars: 100 });
const results = (name: string, id: string, text = `result ${id}`): ConversationMessage => ({
  role: 'user',
  kind: 'tool_results',
  results: [{ toolUseId: id, isError: false, content: { text }, toolName: name }],
});

/** prompt, then `turns` × (assistant a<i>, tool results r<i>) */
function conversation(turns: number, tool = 'Read'): ConversationMessage[] {
  const messages: ConversationMessage[] = [user('the task')];
  for (let index = 0; index < turns; index++) messages.push(assistant(`a${index}`), results(tool, `t${index}`));
  return messages;
}

describe('cut points never split a tool_use from its tool_result', () => {
  test('the cut lands on an assistant message, keeping at least the recent messages asked for', () => {
    const messages = conversation(5); // indexes: 0 task, 1 a0, 2 r0, 3 a1, … 9 a4, 10 r4
    expect(cutPoint(messages, 4)).toBe(7);
    expect(messages[cutPoint(messages, 4)!]).toMatchObject({ kind: 'assistant' });
    expect(cutPoint(messages, 10)).toBeUndefined();
  });

  test('snip keeps the task, adds a marker, and keeps the recent turns intact', () => {
    const snipped = snip(conversation(5), 4)!;
    expect(snipped[0]).toEqual(user('the task'));
    expect(snipped[1]).toMatchObject({
      kind: 'text',
      content: { text: expect.stringContaining('6 earlier messages of this session were snipped') },
    });
    expect(snipped.slice(2)).toEqual(conversation(5).slice(7));
    expect(snip(conversation(1), 4)).toBeUndefined();
  });
});

describe('microcompact', () => {
  test('clears old results of compactable tools, keeping the most recent ones', () => {
    const edited = microcompact(conversation(7), 5)!;
    const texts = edited
      .filter((message) => message.kind === 'tool_results')
      .map((message) =>
        message.kind === 'tool_results' && 'text' in message.results[0]!.content
          ? message.results[0]!.content.text
          : '',
      );
    expect(texts).toEqual([
      CLEARED_TOOL_RESULT,
      CLEARED_TOOL_RESULT,
      'result t2',
      'result t3',
      'result t4',
      'result t5',
      'result t6',
    ]);
    expect(microcompact(edited, 5)).toBeUndefined(); // nothing more to clear
    expect(microcompact(conversation(7, 'Unknown'), 5)).toBeUndefined();
  });
});

describe('context collapse', () => {
  test('archives older turns into one note listing what was done', async () => {
    const loadAssistant = async (ref: string) =>
      [
        { type: 'text', text: `thinking about ${ref}`, citations: null },
        { type: 'tool_use', id: `id-${ref}`, name: 'Read', input: { file_path: `${ref}.ts` } },
      ] as never;
    const collapsed = (await collapse(conversation(6), loadAssistant, 4))!;
    expect(collapsed).toHaveLength(2 + 4);
    const note = collapsed[1]!;
    expect(note.kind === 'text' && 'text' in note.content ? note.content.text : '').toContain('- ran Read a0.ts');
    expect(collapsed.slice(2)).toEqual(conversation(6).slice(-4));
    expect(await collapse(conversation(1), loadAssistant, 4)).toBeUndefined();
  });

  test('media strip removes image and document blocks, and says when there were none', async () => {
    const stored: unknown[][] = [];
    const storeAssistant = async (blocks: unknown[]) => {
      stored.push(blocks);
      return { ref: 'sha256:new', chars: 1 };
    };
    const withImage = async () =>
      [
        { type: 'text', text: 'see' },
        { type: 'image', source: {} },
      ] as never;
    const stripped = (await stripMedia(conversation(1), withImage, storeAssistant))!;
    expect(stripped[1]).toEqual({ role: 'assistant', kind: 'assistant', ref: 'sha256:new', chars: 1 });
    expect(stored).toEqual([[{ type: 'text', text: 'see' }]]);
    expect(
      await stripMedia(conversation(1), async () => [{ type: 'text', text: 'x' }] as never, storeAssistant),
    ).toBeUndefined();
  });
});

describe('fitting a conversation to a summary request', () => {
  const big = (turns: number) => {
    const messages: ConversationMessage[] = [user('the task')];
    for (let index = 0; index < turns; index++)
      messages.push(assistant(`a${index}`), results('Read', `t${index}`, `${index}`.repeat(4_000)));
    return messages;
  };

  test('a conversation that fits is sent as it is', () => {
    expect(fitForSummary(big(3), 100_000, 1_000)).toEqual(big(3));
  });

  test('old results become previews first; the last message keeps its results', () => {
    const fitted = fitForSummary(big(10), 4_000, 500);
    expect(fitted).toHaveLength(21); // no round dropped
    expect(JSON.stringify(fitted[2])).toContain('shortened for the summary');
    expect(fitted[20]).toEqual(big(10)[20]);
    expect(estimateConversationTokens(fitted, 500)).toBeLessThanOrEqual(4_000);
  });

  test('then the oldest rounds go, the task stays, no tool_use loses its result; then the last results too', () => {
    const fitted = fitForSummary(big(40), 2_000, 500);
    expect(estimateConversationTokens(fitted, 500)).toBeLessThanOrEqual(2_000);
    expect(fitted[0]).toEqual(user('the task'));
    expect(fitted.length).toBeLessThan(81);
    const kept = fitted.slice(2);
    expect(kept[0]).toMatchObject({ kind: 'assistant' });
    kept.forEach((message, index) => expect(message.kind).toBe(index % 2 === 0 ? 'assistant' : 'tool_results'));
    const tight = fitForSummary(big(40), 700, 500);
    expect(JSON.stringify(tight.at(-1))).toContain('shortened for the summary');
    expect(tight.length).toBeLessThanOrEqual(4);
  });
});
