/**
 * Edits of the stored conversation that need no model call: snip, microcompact, context
 * collapse and media strip. Pure over the conversation (plus reading stored assistant messages),
 * so a retried activity makes exactly the same edit.
 */
import type Anthropic from '@anthropic-ai/sdk';
import {
  contentPreview,
  type ConversationMessage,
  conversationChars,
  type ToolResult,
} from '../../shared/conversation';
import {
  CHARS_PER_TOKEN,
  CLEARED_TOOL_RESULT,
  COLLAPSE_KEEP_RECENT_MESSAGES,
  MICROCOMPACT_KEEP_RECENT_RESULTS,
  SNIP_KEEP_RECENT_MESSAGES,
} from '../../shared/limits';
import { TOOLS, type ToolRegistry } from '../tools/registry';

export function estimateConversationTokens(messages: readonly ConversationMessage[], baseTokens: number): number {
  return baseTokens + Math.ceil(conversationChars(messages) / CHARS_PER_TOKEN);
}

/**
 * Where older turns can be cut: the index of an assistant message, so the kept part never
 * starts with a tool_result whose tool_use was dropped. Returns the first cut point that keeps
 * at least `keepRecent` messages, or undefined when there is nothing to cut.
 */
export function cutPoint(messages: readonly ConversationMessage[], keepRecent: number): number | undefined {
  for (let index = messages.length - keepRecent; index >= 2; index--) {
    if (messages[index]?.kind === 'assistant') return index;
  }
  return undefined;
}

/** Snip: drop the oldest turns (the first message, the task, always stays), with a marker. */
export function snip(
  messages: readonly ConversationMessage[],
  keepRecent = SNIP_KEEP_RECENT_MESSAGES,
): ConversationMessage[] | undefined {
  const cut = cutPoint(messages, keepRecent);
  if (cut === undefined) return undefined;
  const note: ConversationMessage = {
    role: 'user',
    kind: 'text',
    content: {
      text: `[${cut - 1} earlier messages of this session were snipped to save context. Recent messages follow.]`,
    },
  };
  return [messages[0]!, note, ...messages.slice(cut)];
}

/** Microcompact: clear old results of tools that allow it, keeping the most recent ones. */
export function microcompact(
  messages: readonly ConversationMessage[],
  keepRecent = MICROCOMPACT_KEEP_RECENT_RESULTS,
  tools: ToolRegistry = TOOLS,
): ConversationMessage[] | undefined {
  let seen = 0;
  let changed = false;
  const edited = [...messages];
  for (let index = edited.length - 1; index >= 0; index--) {
    const message = edited[index]!;
    if (message.kind !== 'tool_results') continue;
    const results = message.results.map((result) => {
      if (!result.toolName || !tools.resultsClearable(result.toolName)) return result;
      seen++;
      if (seen <= keepRecent || ('text' in result.content && result.content.text === CLEARED_TOOL_RESULT))
        return result;
      changed = true;
      return { ...result, content: { text: CLEARED_TOOL_RESULT }, media: undefined };
    });
    edited[index] = { ...message, results };
  }
  return changed ? edited : undefined;
}

/**
 * Makes a conversation fit a summary request of `budgetTokens`, as far as needed: first every
 * tool result but the last message's shortened to its preview, then the oldest rounds dropped
 * (a cut starts at an assistant message, so a tool_use never loses its tool_result; the task
 * stays), then the last message's results shortened too.
 */
export function fitForSummary(
  messages: readonly ConversationMessage[],
  budgetTokens: number,
  baseTokens: number,
): ConversationMessage[] {
  const over = (candidate: readonly ConversationMessage[]) =>
    estimateConversationTokens(candidate, baseTokens) > budgetTokens;
  if (!over(messages)) return [...messages];
  let fitted = previewResults(messages, messages.length - 1);
  for (let keep = fitted.length; over(fitted) && keep > 2;) {
    keep = Math.max(2, Math.floor(keep * 0.75));
    fitted = snip(fitted, keep) ?? fitted;
  }
  return over(fitted) ? previewResults(fitted, fitted.length) : fitted;
}

/** The tool results of the messages before `end` shortened to their previews. */
function previewResults(messages: readonly ConversationMessage[], end: number): ConversationMessage[] {
  return messages.map((message, index): ConversationMessage => {
    if (message.kind !== 'tool_results' || index >= end) return message;
    return {
      ...message,
      results: message.results.map((result) =>
        'text' in result.content && result.content.text.endsWith(SHORTENED_FOR_SUMMARY)
          ? result
          : {
              ...result,
              content: { text: `${contentPreview(result.content)}${SHORTENED_FOR_SUMMARY}` },
              media: undefined,
            },
      ),
    };
  });
}

const SHORTENED_FOR_SUMMARY = ' [… shortened for the summary]';

/** One line per archived tool call, for the collapse note: the tool and its subject. */
export function describeToolUse(block: Anthropic.ToolUseBlock, tools: ToolRegistry = TOOLS): string {
  const shown = tools.subjectOf(block.name, block.input).split('\n')[0]!.slice(0, 120);
  return `${block.name}${shown ? ` ${shown}` : ''}`;
}

/**
 * Context collapse (on "prompt is too long"): archive all but the most recent turns into one
 * note listing what was done, without a model call.
 */
export async function collapse(
  messages: readonly ConversationMessage[],
  loadAssistant: (ref: string) => Promise<Anthropic.ContentBlock[]>,
  keepRecent = COLLAPSE_KEEP_RECENT_MESSAGES,
): Promise<ConversationMessage[] | undefined> {
  const cut = cutPoint(messages, keepRecent);
  if (cut === undefined) return undefined;
  const lines: string[] = [];
  for (const message of messages.slice(1, cut)) {
    if (message.kind !== 'assistant') continue;
    for (const block of await loadAssistant(message.ref)) {
      if (block.type === 'text' && block.text.trim())
        lines.push(`- said: ${block.text.trim().split('\n')[0]!.slice(0, 200)}`);
      if (block.type === 'tool_use') lines.push(`- ran ${describeToolUse(block)}`);
    }
  }
  const note: ConversationMessage = {
    role: 'user',
    kind: 'text',
    content: {
      text:
        `[Context collapsed: ${cut - 1} earlier messages were archived to fit the context window. What was done in them:\n` +
        `${lines.join('\n')}\nRecent messages follow; read files again where you need their current content.]`,
    },
  };
  return [messages[0]!, note, ...messages.slice(cut)];
}

const MEDIA_TYPES = new Set(['image', 'document']);

/**
 * Media strip: remove images and documents, from tool results (a Read of a picture or a PDF) and
 * from stored assistant messages; a note says what was removed.
 */
export async function stripMedia(
  messages: readonly ConversationMessage[],
  loadAssistant: (ref: string) => Promise<Anthropic.ContentBlock[]>,
  storeAssistant: (blocks: unknown[]) => Promise<{ ref: string; chars: number }>,
): Promise<ConversationMessage[] | undefined> {
  let changed = false;
  const edited: ConversationMessage[] = [];
  for (const message of messages) {
    if (message.kind === 'tool_results' && message.results.some((result) => result.media?.length)) {
      changed = true;
      edited.push({ ...message, results: message.results.map(withoutMedia) });
      continue;
    }
    if (message.kind !== 'assistant') {
      edited.push(message);
      continue;
    }
    const blocks = await loadAssistant(message.ref);
    const kept = blocks.filter((block) => !MEDIA_TYPES.has((block as { type: string }).type));
    if (kept.length === blocks.length) {
      edited.push(message);
      continue;
    }
    changed = true;
    edited.push({
      role: 'assistant',
      kind: 'assistant',
      ...(await storeAssistant(kept.length ? kept : [{ type: 'text', text: '[media removed]' }])),
    });
  }
  return changed ? edited : undefined;
}

function withoutMedia(result: ToolResult): ToolResult {
  if (!result.media?.length) return result;
  const removed = result.media
    .map((media) => `${media.kind} (${media.mediaType}, ${Math.round(media.bytes / 1024)} KB)`)
    .join(', ');
  const note = `[${removed} removed: the API refused it as too large. Work from the file's name and size, or a smaller version.]`;
  const { media: _removed, ...rest } = result;
  return {
    ...rest,
    content:
      'text' in result.content
        ? { text: `${result.content.text}\n${note}` }
        : { ...result.content, preview: `${result.content.preview}\n${note}` },
  };
}
