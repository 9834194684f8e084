/**
 * A short account of what a batch of tools did, written by a small, cheap model. The loop does
 * not wait for it: it lands in the transcript and the UI's current details when it is ready.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ToolBatchSummaryInput } from '../shared/types';

export function createToolSummaryActivities({ createClient, smallModel }: { createClient: () => Anthropic; smallModel: string }) {
  let client: Anthropic | undefined;
  return {
    async summarizeToolBatch(input: ToolBatchSummaryInput): Promise<string> {
      client ??= createClient();
      const calls = input.calls
        .map((call) => `- ${call.summary}${call.isError ? ' (failed)' : ''}: ${call.preview.replace(/\s+/g, ' ').slice(0, 300)}`)
        .join('\n');
      const message = await client.messages.create({
        model: smallModel,
        max_tokens: 120,
        system: [{ type: 'text', text: 'You label the steps of a coding agent for a progress view. Answer with one short sentence, no preamble.' }],
        messages: [{ role: 'user', content: `The agent just ran these tools:\n${calls}\n\nIn at most 15 words, what did they do?` }],
      });
      return message.content
        .filter((block): block is Anthropic.TextBlock => block.type === 'text')
        .map((block) => block.text)
        .join(' ')
        .trim()
        .slice(0, 300);
    },
  };
}
