/** Model outcomes and planned calls as the model activity returns them, for the loop's unit tests. */
import type { CallModelOutcome, PlannedToolUse } from '../../src/shared/activity-io';
import type { Usage } from '../../src/shared/conversation';
import type { ModelResponse } from '../../src/workflows/core/loop';

export const usage = (input: number, output: number): Usage => ({
  inputTokens: input,
  outputTokens: output,
  cacheCreationInputTokens: 1,
  cacheReadInputTokens: 2,
});

export const readCall: PlannedToolUse = {
  id: 'toolu_1',
  name: 'Read',
  input: { file_path: 'a.ts' },
  plan: { ok: true, concurrencySafe: true, summary: 'Read a.ts', filePath: '/real/repo/a.ts' },
};

export function response(overrides: Partial<ModelResponse> = {}): ModelResponse {
  return {
    kind: 'response',
    conversationRef: 'sha256:conversation',
    messageCount: 1,
    assistant: { ref: 'sha256:assistant', chars: 10 },
    stopReason: 'end_turn',
    text: 'All done.',
    toolUses: [],
    usage: usage(100, 20),
    model: 'claude-sonnet-5-5',
    ...overrides,
  };
}

export const promptTooLong: CallModelOutcome = {
  kind: 'prompt_too_long',
  conversationRef: 'sha256:c',
  status: 400,
  message: 'prompt is too long: 5 tokens > 4 maximum',
};
