/** The payload codec: what Temporal's history holds of every payload when a key is set. */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  isEncrypted,
  KEY_ID_METADATA,
} from '../../../src/encryption/encryption-codec';
import { parseKeys } from '../../../src/encryption/keys';

const secret = () => randomBytes(32).toString('base64');
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString();

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

  test('after rotation new payloads are encrypted with the new key', async () => {
    const old = `k1:${secret()}`;
    const [sealed] = await new EncryptionCodec(parseKeys(`k2:${secret()},${old}`)).encode([payload]);
    expect(text(sealed!.metadata![KEY_ID_METADATA])).toBe('k2');
    await expect(new EncryptionCodec(parseKeys(old)).decode([sealed!])).rejects.toThrow(
      'a payload is encrypted with key "k2", which is not among the keys of AGENT_ENCRYPTION_KEY: add it (after the current one)',
    );
  });

  test('the whole payload is sealed: its metadata comes back too, and only encoding and key id show', async () => {
    const codec = new EncryptionCodec(parseKeys(`k1:${secret()}`));
    const withMetadata: Payload = {
      ...payload,
      metadata: { ...payload.metadata, 'x-secret-name': Buffer.from('plan') },
    };
    const [encrypted] = await codec.encode([withMetadata]);
    expect(Object.keys(encrypted!.metadata!).sort()).toEqual(['encoding', KEY_ID_METADATA]);
    expect(text(encrypted!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    const [decoded] = await codec.decode([encrypted!]);
    expect(text(decoded!.metadata!['x-secret-name'])).toBe('plan');
    expect(text(decoded!.data)).toBe(text(payload.data));
  });

  test('a payload relabelled with another listed key id is refused: the id is authenticated', async () => {
    const keys = parseKeys(`k1:${secret()},k2:${secret()}`);
    const codec = new EncryptionCodec(keys);
    const [sealed] = await codec.encode([payload]);
    const relabelled = { ...sealed!, metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: Buffer.from('k2') } };
    await expect(codec.decode([relabelled])).rejects.toThrow();
  });

  test('several payloads at once, each its own message', async () => {
    const codec = new EncryptionCodec(parseKeys(`k1:${secret()}`));
    const payloads = [1, 'two', { three: 3 }].map((value) => defaultPayloadConverter.toPayload(value));
    const encrypted = await codec.encode(payloads);
    expect(encrypted).toHaveLength(3);
    expect(new Set(encrypted.map((each) => Buffer.from(each.data!).subarray(0, 12).toString('hex'))).size).toBe(3);
    expect((await codec.decode(encrypted)).map((each) => defaultPayloadConverter.fromPayload(each))).toEqual([
      1,
      'two',
      { three: 3 },
    ]);
  });

  test('isEncrypted reads the encoding only: plain JSON, binary/null and no metadata are not', () => {
    expect(isEncrypted(defaultPayloadConverter.toPayload({ a: 1 }))).toBe(false);
    expect(isEncrypted(defaultPayloadConverter.toPayload(undefined))).toBe(false);
    expect(isEncrypted({ data: Buffer.from('x') })).toBe(false);
    expect(isEncrypted({ metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING) } })).toBe(true);
  });
});
