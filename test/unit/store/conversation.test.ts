import type { ContentStore } from '../../../src/store/content-store';
import { LocalContentStore } from '../../../src/store/content-store';
import { appendConversation, ConversationCache, loadConversation } from '../../../src/store/conversation';
import type { ConversationMessage } from '../../../src/shared/conversation';
import { scratchDir } from '../../support/paths';

const said = (text: string): ConversationMessage => ({ role: 'user', kind: 'text', content: { text } });

/** A store that counts its reads. */
function counting(store: ContentStore): { store: ContentStore; reads: () => number } {
  let reads = 0;
  return {
    store: {
      put: (data) => store.put(data),
      has: (ref) => store.has(ref),
      putBytes: (data) => store.putBytes(data),
      getBytes: (ref) => store.getBytes(ref),
      get: (ref) => (reads++, store.get(ref)),
    },
    reads: () => reads,
  };
}

test('with a cache, the next turn reads only its new node, and gets the same conversation as a walk of the whole chain', async () => {
  const { store, reads } = counting(new LocalContentStore(scratchDir('store')));
  const cache = new ConversationCache();
  let ref: string | null = null;
  for (let turn = 0; turn < 5; turn++) {
    ref = await appendConversation(store, ref, [said(`turn ${turn}`)]);
    const before = reads();
    const messages = await loadConversation(store, ref, cache);
    expect(reads() - before).toBe(1); // the new node only: its parent is cached
    expect(messages).toEqual(await loadConversation(store, ref));
  }
  expect(
    (await loadConversation(store, ref, cache)).map((message) =>
      message.kind === 'text' && 'text' in message.content ? message.content.text : '',
    ),
  ).toEqual(['turn 0', 'turn 1', 'turn 2', 'turn 3', 'turn 4']);
});

test('a branch from an older node (a rewind) reads its way back to a cached node', async () => {
  const store = new LocalContentStore(scratchDir('store'));
  const cache = new ConversationCache();
  const first = await appendConversation(store, null, [said('a')]);
  const second = await appendConversation(store, first, [said('b')]);
  await loadConversation(store, first, cache);
  await loadConversation(store, second, cache);
  const branch = await appendConversation(store, first, [said('c')]);
  expect(await loadConversation(store, branch, cache)).toEqual([said('a'), said('c')]);
});

test('the cache keeps the most recently used conversations up to its capacity', () => {
  const cache = new ConversationCache(2);
  cache.remember('sha256:a', [said('a')]);
  cache.remember('sha256:b', [said('b')]);
  cache.get('sha256:a');
  cache.remember('sha256:c', [said('c')]);
  expect(cache.get('sha256:b')).toBeUndefined();
  expect(cache.get('sha256:a')).toEqual([said('a')]);
  expect(cache.get('sha256:c')).toEqual([said('c')]);
});
