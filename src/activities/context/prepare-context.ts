import type Anthropic from '@anthropic-ai/sdk';
import type { PrepareContextInput, PrepareContextOutput } from '../../shared/activity-io';
import type { ContextEdit } from '../../shared/contract';
import type { ConversationMessage } from '../../shared/conversation';
import { SNIP_MAX_MESSAGES } from '../../shared/limits';
import { whileHeartbeating } from '../heartbeat';
import { type ContentStore, getJson, putJson } from '../../store/content-store';
import { appendConversation, appendWithCheckpoint, loadConversation } from '../../store/conversation';
import { collapse, estimateConversationTokens, microcompact, snip, stripMedia } from './context-edits';

export function createContextActivities({ store }: { store: ContentStore }) {
  const loadAssistant = (ref: string) => getJson<Anthropic.ContentBlock[]>(store, ref);
  const storeAssistant = async (blocks: unknown[]) => ({
    ref: await putJson(store, blocks),
    chars: JSON.stringify(blocks).length,
  });

  return {
    /**
     * The context pipeline's edits that need no model call: snip when the history is long, then
     * microcompact while the conversation is still over `targetTokens`; the edited
     * conversation is stored as a new root, so later turns build on it.
     */
    async prepareContext(input: PrepareContextInput): Promise<PrepareContextOutput> {
      // Loading and rewriting a long conversation takes a while on a slow store: heartbeats keep
      // the activity alive under its heartbeat timeout.
      return whileHeartbeating(() => editConversation(input));
    },
  };

  async function editConversation(input: PrepareContextInput): Promise<PrepareContextOutput> {
    const original = await loadConversation(store, input.conversationRef);
    let messages: ConversationMessage[] = [...original, ...input.append];
    const applied: ContextEdit[] = [];
    const over = () => estimateConversationTokens(messages, input.baseTokens) > input.targetTokens;
    for (const step of input.steps) {
      let edited: ConversationMessage[] | undefined;
      // Snip answers a long history, not a large one: dropping turns loses more than clearing
      // old tool results (microcompact) or summarising them (autocompact).
      if (step === 'snip' && messages.length > SNIP_MAX_MESSAGES) edited = snip(messages);
      else if (step === 'microcompact' && over()) edited = microcompact(messages);
      else if (step === 'collapse') edited = await collapse(messages, loadAssistant);
      else if (step === 'media_strip') edited = await stripMedia(messages, loadAssistant, storeAssistant);
      if (edited) {
        messages = edited;
        applied.push(step);
      }
    }
    // The previous turn's end is stored as it was, before any edit (a rewind goes back to it).
    const appended = await appendWithCheckpoint(store, input.conversationRef, input.append, input.turnEnd);
    const conversationRef =
      applied.length > 0 ? await appendConversation(store, null, messages) : appended.conversationRef;
    return {
      conversationRef,
      ...(appended.checkpointRef ? { checkpointRef: appended.checkpointRef } : {}),
      estimatedTokens: estimateConversationTokens(messages, input.baseTokens),
      applied,
      messageCount: messages.length,
    };
  }
}
