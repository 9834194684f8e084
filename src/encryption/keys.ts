/**
 * The encryption keys of a deployment: `AGENT_ENCRYPTION_KEY` (or the file `AGENT_ENCRYPTION_KEY_FILE`
 * names, holding the same text), one or more `<key id>:<base64 of 32 bytes>` separated by commas.
 * The first encrypts; every one listed still decrypts, so a new key is rotated in by putting it
 * first and keeping the old ones after it.
 */
import { readFileSync } from 'node:fs';

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export interface EncryptionKeys {
  /** Encrypts everything new. */
  current: EncryptionKey;
  /** Every key that may still have to decrypt something, by id. */
  byId: ReadonlyMap<string, Buffer>;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Undefined when no key is set (encryption off); a value it cannot use fails naming the variable. */
export function encryptionKeys(environment: NodeJS.ProcessEnv = process.env): EncryptionKeys | undefined {
  const inline = environment.AGENT_ENCRYPTION_KEY?.trim();
  const file = environment.AGENT_ENCRYPTION_KEY_FILE?.trim();
  if (inline && file) throw new Error('set AGENT_ENCRYPTION_KEY or AGENT_ENCRYPTION_KEY_FILE, not both');
  let text = inline;
  let source = 'AGENT_ENCRYPTION_KEY';
  if (file) {
    source = `AGENT_ENCRYPTION_KEY_FILE (${file})`;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new Error(`${source}: cannot read it: ${(error as Error).message}`);
    }
  }
  if (!text) return undefined;
  return parseKeys(text, source);
}

export function parseKeys(text: string, source = 'AGENT_ENCRYPTION_KEY'): EncryptionKeys {
  const keys: EncryptionKey[] = [];
  for (const [index, entry] of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .entries()) {
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator);
    // Never the key material in a message: the entry's position and id only.
    if (separator < 1 || !KEY_ID.test(id))
      throw new Error(
        `${source}: entry ${index + 1} is not <key id>:<base64 of 32 bytes> (key ids: letters, digits, . _ -)`,
      );
    const key = Buffer.from(entry.slice(separator + 1), 'base64');
    if (key.length !== 32)
      throw new Error(
        `${source}: key "${id}" is ${key.length} bytes, not 32 (AES-256): make one with  openssl rand -base64 32`,
      );
    if (keys.some((known) => known.id === id)) throw new Error(`${source}: key id "${id}" appears twice`);
    keys.push({ id, key });
  }
  if (keys.length === 0) throw new Error(`${source} holds no key`);
  return { current: keys[0]!, byId: new Map(keys.map(({ id, key }) => [id, key])) };
}
