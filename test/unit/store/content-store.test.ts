import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { toApiMessages } from '../../../src/activities/model/api-messages';
import { contentRef, LocalContentStore, loadText, storeText } from '../../../src/store/content-store';
import { appendConversation, loadConversation } from '../../../src/store/conversation';
import type { ConversationMessage } from '../../../src/shared/conversation';
import { scratchDir } from '../../support/paths';

let store: LocalContentStore;
beforeEach(() => {
  store = new LocalContentStore(scratchDir('store'));
});

test('content is addressed by its sha256; writing it again changes nothing', async () => {
  const ref = await store.put('hello');
  expect(ref).toBe(contentRef('hello'));
  expect(ref).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(await store.put('hello')).toBe(ref);
  expect(await new LocalContentStore(store.directory).get(ref)).toBe('hello'); // read back from disk, not the cache
  expect(readdirSync(store.directory)).toHaveLength(1);
});

test('a missing object is a non-retryable failure that says where it looked', async () => {
  await expect(store.get(contentRef('never stored'))).rejects.toMatchObject({
    type: 'ContentMissing',
    nonRetryable: true,
  });
  await expect(store.getBytes(contentRef('never stored'))).rejects.toMatchObject({
    type: 'ContentMissing',
    nonRetryable: true,
    message: expect.stringContaining(store.directory),
  });
});

test('bytes share the address space of text: the same content is the same object', async () => {
  const ref = await store.putBytes(Buffer.from('héllo', 'utf8'));
  expect(ref).toBe('sha256:' + createHash('sha256').update(Buffer.from('héllo', 'utf8')).digest('hex'));
  expect(await store.put('héllo')).toBe(ref);
  const [fanOut] = readdirSync(store.directory);
  expect(readdirSync(join(store.directory, fanOut!))).toEqual([ref.slice('sha256:'.length + 2)]);
  expect(await new LocalContentStore(store.directory).get(ref)).toBe('héllo');
});

test('binary content comes back byte for byte, even after a lossy read as text', async () => {
  const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]);
  const ref = await store.putBytes(binary);
  expect(ref).toBe(contentRef(binary));
  expect(await store.get(ref)).toBe('\ufffd\ufffd\u0000\ufffdA');
  expect(await store.getBytes(ref)).toEqual(binary);
  expect(await new LocalContentStore(store.directory).getBytes(ref)).toEqual(binary);
});

test('has: whether the object is in the store, cached or on disk', async () => {
  const ref = await store.putBytes(Buffer.from('present'));
  expect(await store.has(ref)).toBe(true);
  expect(await new LocalContentStore(store.directory).has(ref)).toBe(true);
  expect(await store.has(contentRef('absent'))).toBe(false);
});

test('an object is written whole or not at all: no temporary file stays behind', async () => {
  await Promise.all([store.putBytes(Buffer.from('same')), store.putBytes(Buffer.from('same')), store.put('same')]);
  const [fanOut] = readdirSync(store.directory);
  expect(readdirSync(join(store.directory, fanOut!))).toHaveLength(1);
});

test('short text stays inline; long text is stored with a preview', async () => {
  expect(await storeText(store, 'short')).toEqual({ text: 'short' });
  const long = 'y'.repeat(5000);
  const stored = await storeText(store, long);
  expect(stored).toMatchObject({
    ref: contentRef(long),
    chars: 5000,
    preview: expect.stringContaining('(5000 chars)'),
  });
  expect(await loadText(store, stored)).toBe(long);
});

test('the conversation is a chain of nodes; each turn adds one node', async () => {
  await store.put(
    JSON.stringify([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a' } },
    ]),
  );
  const assistantRef = contentRef(
    JSON.stringify([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a' } },
    ]),
  );
  const first: ConversationMessage[] = [{ role: 'user', kind: 'text', content: { text: 'task' } }];
  const second: ConversationMessage[] = [
    { role: 'assistant', kind: 'assistant', ref: assistantRef, chars: 10 },
    {
      role: 'user',
      kind: 'tool_results',
      results: [{ toolUseId: 'toolu_1', isError: false, content: await storeText(store, 'z'.repeat(3000)) }],
    },
    { role: 'user', kind: 'text', content: { text: 'and also this' } },
  ];
  const head = await appendConversation(store, await appendConversation(store, null, first), second);
  const messages = await loadConversation(store, head);
  expect(messages).toEqual([...first, ...second]);
  const api = await toApiMessages(store, messages);
  // Consecutive user messages are merged: roles alternate as the API requires.
  expect(api.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  expect(api[2]!.content).toEqual([
    { type: 'tool_result', tool_use_id: 'toolu_1', content: 'z'.repeat(3000), is_error: false },
    { type: 'text', text: 'and also this' },
  ]);
});
