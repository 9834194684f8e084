/**
 * A short account of what a batch of tools did, written by a small, cheap model. The loop does
 * not wait for it: it lands in the transcript and the UI's current details when it is ready.
 */
import type { ToolBatchSummaryInput } from '../../shared/activity-io';
import { textOf } from '../../shared/conversation';
import type { ModelApi } from './anthropic';

export function createToolSummaryActivities({ api, smallModel }: { api: ModelApi; smallModel: string }) {
  return {
    async summarizeToolBatch(input: ToolBatchSummaryInput): Promise<string> {
      const calls = input.calls
        .map(
          (call) =>
            `- ${call.summary}${call.isError ? ' (failed)' : ''}: ${call.preview.replace(/\s+/g, ' ').slice(0, 300)}`,
        )
        .join('\n');
      const reply = await api.stream(
        {
          model: smallModel,
          max_tokens: 120,
          system: [
            {
              type: 'text',
              text: 'You label the steps of a coding agent for a progress view. Answer with one short sentence, no preamble.',
            },
          ],
          messages: [
            {
              role: 'user',
              content: `The agent just ran these tools:\n${calls}\n\nIn at most 15 words, what did they do?`,
            },
          ],
        },
        'Tool summary',
      );
      // A request too large to summarise costs nothing but the summary.
      if (reply.kind !== 'message') return '';
      return textOf(reply.message.content, ' ').trim().slice(0, 300);
    },
  };
}
