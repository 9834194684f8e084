import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { contentRef, LocalContentStore } from '../../../src/store/content-store';
import { EncryptionCodec, isEncrypted } from '../../../src/encryption/encryption-codec';
import { encryptionKeys, parseKeys } from '../../../src/encryption/keys';
import { BlobCipher, isSealed } from '../../../src/encryption/stored-blob';

const secret = () => randomBytes(32).toString('base64');

describe('the deployment keys (AGENT_ENCRYPTION_KEY)', () => {
  test('the first key encrypts, every listed key decrypts; a key file holds the same text', () => {
    const text = `new:${secret()}, old:${secret()}`;
    const keys = parseKeys(text);
    expect(keys.current.id).toBe('new');
    expect([...keys.byId.keys()]).toEqual(['new', 'old']);
    const file = join(mkdtempSync(join(tmpdir(), 'keys-')), 'keys');
    writeFileSync(file, `${text}\n`);
    expect(encryptionKeys({ AGENT_ENCRYPTION_KEY_FILE: file })?.current.id).toBe('new');
    expect(encryptionKeys({})).toBeUndefined();
  });

  test('a value it cannot use fails naming the variable and the entry, never showing the key', () => {
    const short = Buffer.alloc(16, 7).toString('base64');
    expect(() => parseKeys(`k1:${short}`)).toThrow('AGENT_ENCRYPTION_KEY: key "k1" is 16 bytes, not 32 (AES-256)');
    expect(() => parseKeys(`k1:${short}`)).not.toThrow(short);
    expect(() => parseKeys(secret())).toThrow('entry 1 is not <key id>:<base64 of 32 bytes>');
    expect(() => parseKeys(`a:${secret()},a:${secret()}`)).toThrow('key id "a" appears twice');
    expect(() => encryptionKeys({ AGENT_ENCRYPTION_KEY: `a:${secret()}`, AGENT_ENCRYPTION_KEY_FILE: '/x' })).toThrow(
      'not both',
    );
    expect(() => encryptionKeys({ AGENT_ENCRYPTION_KEY_FILE: '/nonexistent/keys' })).toThrow(
      'AGENT_ENCRYPTION_KEY_FILE (/nonexistent/keys): cannot read it',
    );
  });
});

describe('the payload codec', () => {
  const payload = defaultPayloadConverter.toPayload({ prompt: 'the secret plan' });

  test('encrypts with the current key, names it, and decrypts back to the same payload; plain payloads pass through', async () => {
    const codec = new EncryptionCodec(parseKeys(`k1:${secret()}`));
    const [encrypted] = await codec.encode([payload]);
    expect(isEncrypted(encrypted!)).toBe(true);
    expect(Buffer.from(encrypted!.metadata!['encryption-key-id']!).toString()).toBe('k1');
    expect(Buffer.from(encrypted!.data!).includes('secret plan')).toBe(false);
    const decoded = await codec.decode([encrypted!, payload]);
    expect(decoded.map((value) => defaultPayloadConverter.fromPayload(value))).toEqual([
      { prompt: 'the secret plan' },
      { prompt: 'the secret plan' },
    ]);
    expect(decoded[1]).toBe(payload);
  });

  test('after rotation the old key still decrypts; a key that is gone or a tampered payload fails', async () => {
    const old = `k1:${secret()}`;
    const [sealed] = await new EncryptionCodec(parseKeys(old)).encode([payload]);
    const [opened] = await new EncryptionCodec(parseKeys(`k2:${secret()},${old}`)).decode([sealed!]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual({ prompt: 'the secret plan' });
    await expect(new EncryptionCodec(parseKeys(`k2:${secret()}`)).decode([sealed!])).rejects.toThrow(
      'encrypted with key "k1", which is not among the keys',
    );
    const tampered = { ...sealed!, data: Buffer.from(sealed!.data!).fill(1, 20, 21) };
    await expect(new EncryptionCodec(parseKeys(old)).decode([tampered])).rejects.toThrow();
  });
});

describe('the store encrypted at rest', () => {
  test('objects are sealed on disk under the plaintext hash; older plaintext objects still read', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'store-'));
    const plain = new LocalContentStore(directory);
    const before = await plain.put('written before encryption was on');
    const store = new LocalContentStore(directory, new BlobCipher(parseKeys(`k1:${secret()}`)));
    const ref = await store.put('the secret plan');
    expect(ref).toBe(contentRef('the secret plan')); // the same address as unencrypted: dedup and retries unchanged
    const files = readdirSync(directory, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => readFileSync(join(entry.parentPath, entry.name)));
    expect(files.some((bytes) => bytes.includes('the secret plan'))).toBe(false);
    expect(files.filter((bytes) => isSealed(bytes))).toHaveLength(1);
    const fresh = new LocalContentStore(directory, new BlobCipher(parseKeys(`k1:${secret()}`)));
    await expect(fresh.get(ref)).rejects.toThrow();
    const reader = new LocalContentStore(directory, (store as unknown as { cipher: BlobCipher }).cipher);
    expect(await reader.get(ref)).toBe('the secret plan');
    expect(await reader.get(before)).toBe('written before encryption was on');
  });
});
