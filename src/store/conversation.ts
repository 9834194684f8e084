import type { ConversationMessage } from '../shared/conversation';
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

/**
 * The messages of the chain ending at `ref`. With a cache, the walk stops at the first node it
 * holds: a session's next turn reads its one new node, not the whole chain again.
 */
export async function loadConversation(
  store: ContentStore,
  ref: string | null,
  cache?: ConversationCache,
): Promise<ConversationMessage[]> {
  const segments: (readonly ConversationMessage[])[] = [];
  for (let current = ref; current !== null;) {
    const cached = cache?.get(current);
    if (cached) {
      segments.push(cached);
      break;
    }
    const node = await getJson<ConversationNode>(store, current);
    segments.push(node.messages);
    current = node.parent;
  }
  const messages = segments.reverse().flat();
  if (ref !== null) cache?.remember(ref, messages);
  return messages;
}

/**
 * Whole conversations by the reference of their last node, most recently used kept. Nodes are
 * immutable, so a cached conversation is always right; one per running session is what helps.
 */
export class ConversationCache {
  private readonly conversations = new Map<string, readonly ConversationMessage[]>();

  constructor(private readonly capacity = 1_000) {}

  get(ref: string): readonly ConversationMessage[] | undefined {
    const found = this.conversations.get(ref);
    if (found) {
      this.conversations.delete(ref);
      this.conversations.set(ref, found);
    }
    return found;
  }

  remember(ref: string, messages: readonly ConversationMessage[]): void {
    this.conversations.delete(ref);
    this.conversations.set(ref, messages);
    if (this.conversations.size > this.capacity) this.conversations.delete(this.conversations.keys().next().value!);
  }
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
  if (turnEnd === undefined || turnEnd < 1 || turnEnd > append.length)
    return { conversationRef: await appendConversation(store, parent, append) };
  const checkpointRef = await appendConversation(store, parent, append.slice(0, turnEnd));
  const rest = append.slice(turnEnd);
  return {
    conversationRef: rest.length ? await appendConversation(store, checkpointRef, rest) : checkpointRef,
    checkpointRef,
  };
}
