/**
 * A hook's `transcript_path`: the session's conversation so far (the model's last reply included), as JSONL (a
 * line per message, `{"type":"user"|"assistant","message":{"role","content"}}` with the Messages
 * API's content blocks; Claude Code's own transcript lines carry more fields). Written by the
 * worker into a private temporary directory, never the workdir, bound read-only into the hook's
 * sandbox at the same path, and removed when the hooks are done.
 */
import { withPrivateFile, type PrivateFile } from '../../sandbox/private-file';
import type { ConversationMessage } from '../../shared/conversation';
import type { ContentStore } from '../../store/content-store';
import { loadConversation } from '../../store/conversation';
import { type ApiMessage, toApiMessages } from '../model/api-messages';

/** The conversation's lines. */
export function transcriptLines(messages: readonly ApiMessage[]): string {
  return messages
    .map((message) => JSON.stringify({ type: message.role, message: { role: message.role, content: message.content } }))
    .map((line) => `${line}\n`)
    .join('');
}

/** Runs `use` with the transcript file (when the session has a conversation yet, else without one). */
export async function withTranscript<T>(
  store: ContentStore,
  conversation: { conversationRef?: string; pendingMessages?: ConversationMessage[] },
  use: (transcript: PrivateFile | undefined) => Promise<T>,
): Promise<T> {
  const pending = conversation.pendingMessages ?? [];
  if (!conversation.conversationRef && pending.length === 0) return use(undefined);
  const stored = await loadConversation(store, conversation.conversationRef ?? null);
  const messages = await toApiMessages(store, [...stored, ...pending]);
  return withPrivateFile('transcript.jsonl', transcriptLines(messages), use);
}
