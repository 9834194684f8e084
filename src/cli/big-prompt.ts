/**
 * Prompts too long to go into history inline (over MAX_INLINE_PROMPT_BYTES): stored in the
 * store's content, where workers load them from, and passed as input `promptRef`.
 * `durable-agent store-prompt` does it for sessions started otherwise (the Temporal CLI, a schedule).
 */
import { readFile } from 'node:fs/promises';
import type { ContentStore } from '../store/content-store';
import { encryptionKeys } from '../encryption/keys';
import { openStore } from '../store/open-store';
import { storeSetting } from '../store/store-setting';
import { MAX_INLINE_PROMPT_BYTES } from '../shared/limits';
import { type AgentInput, utf8Bytes } from '../shared/input';
import { UsageError } from './usage-error';

/** The input as it is started: a prompt over the inline limit replaced by its reference. */
export async function withLongPromptStored(input: AgentInput, content: ContentStore): Promise<AgentInput> {
  const prompt = input.prompt?.trim();
  if (prompt === undefined || utf8Bytes(prompt) <= MAX_INLINE_PROMPT_BYTES) return input;
  const { prompt: _inline, ...rest } = input;
  return { ...rest, promptRef: await content.put(prompt) };
}

/** `durable-agent store-prompt <file | ->`: stores the prompt and prints the reference to start a session with. */
export async function storePrompt(source: string, environment: NodeJS.ProcessEnv): Promise<number> {
  const text = (source === '-' ? await readStdin() : await readFile(source, 'utf8')).trim();
  if (!text) throw new UsageError(`${source === '-' ? 'standard input' : source} holds no prompt (it is empty)`, false);
  const store = await openStore(storeSetting(environment), encryptionKeys(environment));
  try {
    const ref = await store.content.put(text);
    console.log(ref);
    const start = `{"promptRef":"${ref}", …}`;
    console.error(
      `Stored ${utf8Bytes(text)} bytes; start a session with ${start} (workers need the same AGENT_STORE).`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
