/**
 * The conversation as the workflow holds it, and the small pure helpers every layer uses on it
 * (the workflow, the activities and the CLI alike): token usage, lengths, text, previews and
 * `<tool_use_error>` results.
 *
 * Plain JSON only: these values are serialised into Temporal history.
 */

/** Tokens of one model call, or of a whole session. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
  /**
   * What the calls cost in USD (src/shared/model-prices.ts), priced by the activity that made
   * them; absent when none had a known price (a model the table lacks, or a call recorded before
   * issue 26). A session's total counts its sub-agents' and its compactions'.
   */
  costUsd?: number;
}

export const ZERO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
};

export function addUsage(total: Usage, added: Usage): Usage {
  return {
    inputTokens: total.inputTokens + added.inputTokens,
    outputTokens: total.outputTokens + added.outputTokens,
    cacheCreationInputTokens: total.cacheCreationInputTokens + added.cacheCreationInputTokens,
    cacheReadInputTokens: total.cacheReadInputTokens + added.cacheReadInputTokens,
    ...addedCost(total.costUsd, added.costUsd),
  };
}

/** The cost of both, when either has one (rounded as model-prices.ts rounds a call's). */
function addedCost(total: number | undefined, added: number | undefined): { costUsd?: number } {
  if (total === undefined && added === undefined) return {};
  return { costUsd: Math.round(((total ?? 0) + (added ?? 0)) * 1e8) / 1e8 };
}

/**
 * Text that stays inline when short (readable in the Temporal UI) or lives in the content store,
 * in which case history holds only its reference, its length and a short preview.
 */
export type TextOrRef = { text: string } | { ref: string; chars: number; preview: string };

export interface ToolResult {
  toolUseId: string;
  isError: boolean;
  content: TextOrRef;
  /** The tool that produced it (not sent to the API; lets microcompact pick old results). */
  toolName?: string;
  /** Images and PDFs the result shows the model (Read of a picture or a PDF); data in the store. */
  media?: StoredMedia[];
  /** A PreToolUse hook's `additionalContext`: the model gets it after the result's text. */
  hookContext?: string;
}

/** An image or a document block of a tool result: its base64 data lives in the content store. */
export interface StoredMedia {
  kind: 'image' | 'document';
  mediaType: string;
  ref: string;
  bytes: number;
  /** What it costs the context, in characters of text (the token estimates count chars / 4). */
  estimatedChars: number;
}

/**
 * One message of the conversation as the workflow holds it. Assistant messages live in the
 * content store (their full content blocks as the API returned them); user prompts and tool
 * results are inline when short.
 */
export type ConversationMessage =
  | { role: 'user'; kind: 'text'; content: TextOrRef }
  | { role: 'assistant'; kind: 'assistant'; ref: string; chars: number }
  | { role: 'user'; kind: 'tool_results'; results: ToolResult[] };

/** Characters of a text, inline or stored. */
export function contentChars(content: TextOrRef): number {
  return 'text' in content ? content.text.length : content.chars;
}

/** Characters the messages add to a request (the basis of every token estimate). */
export function conversationChars(messages: readonly ConversationMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    if (message.kind === 'assistant') chars += message.chars;
    else if (message.kind === 'text') chars += contentChars(message.content);
    else
      for (const result of message.results)
        chars +=
          contentChars(result.content) + (result.media ?? []).reduce((sum, media) => sum + media.estimatedChars, 0);
  }
  return chars;
}

/** The start of a text for people (transcript, summaries): what a stored text keeps inline. */
export function contentPreview(content: TextOrRef, limit = 300): string {
  return 'text' in content ? content.text.slice(0, limit) : content.preview;
}

/** The text blocks of a model reply, joined (thinking, tool_use and other blocks left out). */
export function textOf(blocks: readonly { type: string; text?: string }[], separator = '\n'): string {
  return blocks
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join(separator);
}

/** How a tool failure reads to the model (Claude Code's wording). */
export function toolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}

/** A `tool_result` that tells the model why its call did not run or failed. */
export function toolErrorResult(call: { id: string; name: string }, message: string): ToolResult {
  return { toolUseId: call.id, isError: true, content: { text: toolUseError(message) }, toolName: call.name };
}
