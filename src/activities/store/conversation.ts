import type { ConversationMessage } from '../../shared/conversation';
import { type ContentStore, getJson, putJson } from './content-store';

/**
 * The conversation is stored as a chain of immutable nodes, each holding the messages one turn
 * added and a reference to the previous node. A turn writes one small node whatever the length
 * of the conversation, and the workflow passes a single reference instead of the messages.
 */
interface ConversationNode {
  parent: string | null;
  messages: ConversationMessage[];
}

export async function appendConversation(
  store: ContentStore,
  parent: string | null,
  messages: ConversationMessage[],
): Promise<string> {
  const node: ConversationNode = { parent, messages };
  return putJson(store, node);
}

export async function loadConversation(store: ContentStore, ref: string | null): Promise<ConversationMessage[]> {
  const segments: ConversationMessage[][] = [];
  for (let current = ref; current !== null; ) {
    const node = await getJson<ConversationNode>(store, current);
    segments.push(node.messages);
    current = node.parent;
  }
  return segments.reverse().flat();
}

/**
 * Appends `append` to the chain. With `turnEnd`, its first `turnEnd` messages (the end of the
 * previous turn) become a node of their own, returned as `checkpointRef`: the conversation just
 * after that turn, which a rewind or a fork goes back to.
 */
export async function appendWithCheckpoint(
  store: ContentStore,
  parent: string | null,
  append: ConversationMessage[],
  turnEnd: number | undefined,
): Promise<{ conversationRef: string; checkpointRef?: string }> {
  if (turnEnd === undefined || turnEnd < 1 || turnEnd > append.length) return { conversationRef: await appendConversation(store, parent, append) };
  const checkpointRef = await appendConversation(store, parent, append.slice(0, turnEnd));
  const rest = append.slice(turnEnd);
  return { conversationRef: rest.length ? await appendConversation(store, checkpointRef, rest) : checkpointRef, checkpointRef };
}
