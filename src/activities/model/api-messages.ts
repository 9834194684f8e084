/**
 * The stored conversation as the Messages API wants it: references resolved, tool results of one
 * message capped together, roles alternating, and the prompt-cache breakpoint at the end.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ConversationMessage, StoredMedia } from '../../shared/conversation';
import { TOOL_RESULT_PREVIEW_CHARS, TOOL_RESULTS_PER_MESSAGE_MAX_CHARS } from '../../shared/limits';
import { type ContentStore, getJson, loadText } from '../../store/content-store';

/** A user or assistant message with its content as blocks (the only shapes we send). */
export interface ApiMessage {
  role: 'user' | 'assistant';
  content: Anthropic.ContentBlockParam[];
}

/** Resolves references and builds the Messages API `messages` array. */
export async function toApiMessages(
  store: ContentStore,
  messages: ConversationMessage[],
  resultsPerMessageMaxChars = TOOL_RESULTS_PER_MESSAGE_MAX_CHARS,
): Promise<ApiMessage[]> {
  const result: ApiMessage[] = [];
  for (const message of messages) {
    if (message.kind === 'text') {
      result.push({ role: 'user', content: [{ type: 'text', text: await loadText(store, message.content) }] });
    } else if (message.kind === 'assistant') {
      result.push({ role: 'assistant', content: await getJson<Anthropic.ContentBlockParam[]>(store, message.ref) });
    } else {
      const texts: string[] = [];
      for (const toolResult of message.results) texts.push(await loadText(store, toolResult.content));
      const capped = capMessageResults(texts, resultsPerMessageMaxChars);
      const blocks: Anthropic.ToolResultBlockParam[] = [];
      for (const [index, toolResult] of message.results.entries()) {
        const media = await Promise.all((toolResult.media ?? []).map((stored) => mediaBlock(store, stored)));
        const text = toolResult.hookContext
          ? `${capped[index]!}\n\n<system-reminder>\nPreToolUse hook additional context: ${toolResult.hookContext}\n</system-reminder>`
          : capped[index]!;
        blocks.push({
          type: 'tool_result',
          tool_use_id: toolResult.toolUseId,
          content: media.length ? [{ type: 'text', text }, ...media] : text,
          is_error: toolResult.isError,
        });
      }
      result.push({ role: 'user', content: blocks });
    }
  }
  return mergeConsecutiveRoles(result);
}

/** An image or PDF of a tool result, as the API takes it (base64 from the store). */
async function mediaBlock(
  store: ContentStore,
  media: StoredMedia,
): Promise<Anthropic.ImageBlockParam | Anthropic.DocumentBlockParam> {
  const data = await store.get(media.ref);
  if (media.kind === 'document')
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } };
  return {
    type: 'image',
    source: { type: 'base64', media_type: media.mediaType as Anthropic.Base64ImageSource['media_type'], data },
  };
}

/**
 * Tool-result budget per message: when the results of one message together exceed the cap,
 * the largest are cut to a preview until they fit (each is also capped on its own when produced).
 */
export function capMessageResults(texts: string[], cap = TOOL_RESULTS_PER_MESSAGE_MAX_CHARS): string[] {
  const capped = [...texts];
  let total = capped.reduce((sum, text) => sum + text.length, 0);
  while (total > cap) {
    let largest = 0;
    capped.forEach((text, index) => {
      if (text.length > capped[largest]!.length) largest = index;
    });
    const original = capped[largest]!;
    if (original.length <= TOOL_RESULT_PREVIEW_CHARS + 200) break;
    capped[largest] =
      `${original.slice(0, TOOL_RESULT_PREVIEW_CHARS)}\n… [cut: the results of this message together were over ${cap} characters; ` +
      `this one had ${original.length}. Run the call again on a smaller part.]`;
    total -= original.length - capped[largest]!.length;
  }
  return capped;
}

/** The API wants roles to alternate; consecutive user messages are merged into one. */
function mergeConsecutiveRoles(messages: ApiMessage[]): ApiMessage[] {
  const merged: ApiMessage[] = [];
  for (const message of messages) {
    const previous = merged[merged.length - 1];
    if (previous && previous.role === message.role) {
      previous.content = [...previous.content, ...message.content];
    } else {
      merged.push({ role: message.role, content: [...message.content] });
    }
  }
  return merged;
}

/** Marks the end of the conversation so the next turn reads everything before it from the cache. */
export function withCacheBreakpoint(messages: ApiMessage[]): ApiMessage[] {
  const last = messages[messages.length - 1];
  if (!last || last.content.length === 0) return messages;
  const blocks = [...last.content];
  const final = blocks[blocks.length - 1]!;
  if (final.type === 'thinking' || final.type === 'redacted_thinking') return messages;
  blocks[blocks.length - 1] = { ...final, cache_control: { type: 'ephemeral' } } as Anthropic.ContentBlockParam;
  return [...messages.slice(0, -1), { ...last, content: blocks }];
}
