import Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { DEFAULT_FALLBACK_AFTER_OVERLOADS, ErrorType } from '../shared/constants';
import type { CallModelInput, CallModelOutcome, Usage } from '../shared/types';
import { type ContentStore, putJson } from './content-store';
import { type ApiMessage, appendConversation, loadConversation, toApiMessages } from './conversation';
import { whileHeartbeating } from './heartbeat';
import { classifyModelError } from './model-errors';
import { apiToolDefinitions, planToolUse } from './tools/registry';

export interface ModelActivityDependencies {
  store: ContentStore;
  /** Creates the API client from the worker's environment; the key never enters history. */
  createClient: () => Anthropic;
}

/** The only place that talks to the Messages API. */
export function createModelActivities({ store, createClient }: ModelActivityDependencies) {
  let client: Anthropic | undefined;
  return {
    async callModel(input: CallModelInput): Promise<CallModelOutcome> {
      const context = Context.current();
      const conversationRef = await appendConversation(store, input.conversationRef, input.append);
      const conversation = await loadConversation(store, conversationRef);
      const messages = withCacheBreakpoint(await toApiMessages(store, conversation));
      const tools = apiToolDefinitions(input.allowedTools);
      const params: Anthropic.MessageCreateParamsNonStreaming = {
        model: input.model,
        max_tokens: input.maxOutputTokens,
        // Stable prefix first and marked for caching: tools, then the system prompt.
        system: [{ type: 'text', text: await store.get(input.systemRef), cache_control: { type: 'ephemeral' } }],
        tools: tools.map((tool, index) => (index === tools.length - 1 ? { ...tool, cache_control: { type: 'ephemeral' } } : tool)),
        messages,
      };

      client ??= createClient();
      let message: Anthropic.Message;
      try {
        message = await whileHeartbeating(async () => {
          const stream = client!.messages.stream(params, { signal: context.cancellationSignal });
          for await (const _event of stream) {
            // Heartbeats are throttled by the SDK; one per event keeps a long stream visibly alive.
            context.heartbeat();
          }
          return stream.finalMessage();
        });
      } catch (error) {
        if (context.cancellationSignal.aborted) throw new CancelledFailure('Model call cancelled');
        const classified = classifyModelError(error);
        const attempt = context.info.attempt;
        if (
          classified instanceof ApplicationFailure &&
          classified.type === ErrorType.ModelOverloaded &&
          input.fallbackModel &&
          input.fallbackModel !== input.model &&
          attempt >= (input.fallbackAfterOverloads ?? DEFAULT_FALLBACK_AFTER_OVERLOADS)
        ) {
          // Enough overloaded attempts: hand the choice of another model to the workflow.
          return { kind: 'overloaded', conversationRef, attempts: attempt, message: classified.message };
        }
        if (classified instanceof ApplicationFailure) throw classified;
        return { ...classified, conversationRef };
      }

      if (!Array.isArray(message.content)) {
        throw ApplicationFailure.retryable('The model API returned a message without content blocks', ErrorType.ModelMalformedResponse);
      }
      // A reply cut off by the output limit may end in a half-written tool_use: keep its text only,
      // so the conversation never holds a tool_use that will get no tool_result.
      const truncated = message.stop_reason === 'max_tokens' || message.stop_reason === 'model_context_window_exceeded';
      const content = truncated ? message.content.filter((block) => block.type !== 'tool_use') : message.content;
      const assistantJson = JSON.stringify(content);
      const assistantRef = await putJson(store, content);
      const text = content
        .filter((block): block is Anthropic.TextBlock => block.type === 'text')
        .map((block) => block.text)
        .join('\n');
      const toolUses = content
        .filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')
        .map((block) => planToolUse(block, input.workdir, input.allowedTools));
      return {
        kind: 'response',
        conversationRef,
        messageCount: conversation.length,
        assistant: { ref: assistantRef, chars: assistantJson.length },
        stopReason: message.stop_reason ?? 'end_turn',
        text,
        toolUses,
        usage: usageOf(message.usage),
        model: message.model ?? input.model,
      };
    },
  };
}

export function usageOf(usage: Partial<Anthropic.Usage> | undefined): Usage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheCreationInputTokens: usage?.cache_creation_input_tokens ?? 0,
    cacheReadInputTokens: usage?.cache_read_input_tokens ?? 0,
  };
}

/** Marks the end of the conversation so the next turn reads everything before it from the cache. */
function withCacheBreakpoint(messages: ApiMessage[]): ApiMessage[] {
  const last = messages[messages.length - 1];
  if (!last || last.content.length === 0) return messages;
  const blocks = [...last.content];
  const final = blocks[blocks.length - 1]!;
  if (final.type === 'thinking' || final.type === 'redacted_thinking') return messages;
  blocks[blocks.length - 1] = { ...final, cache_control: { type: 'ephemeral' } } as Anthropic.ContentBlockParam;
  return [...messages.slice(0, -1), { ...last, content: blocks }];
}
