/** AES-256-GCM as the codec and the store use it: nonce, ciphertext, tag; the key id authenticated. */
import { randomBytes } from 'node:crypto';
import { open, seal } from '../../../src/encryption/aes-gcm';

const key = randomBytes(32);
const plaintext = Buffer.from('the secret plan');

test('what is sealed opens with the same key and id, to the same bytes', () => {
  expect(open(seal(plaintext, key, 'k1'), key, 'k1')).toEqual(plaintext);
  expect(open(seal(new Uint8Array(), key, 'k1'), key, 'k1')).toEqual(Buffer.alloc(0));
});

test('a sealed message is a 12-byte nonce, the ciphertext, a 16-byte tag; never the plaintext', () => {
  const sealed = seal(plaintext, key, 'k1');
  expect(sealed).toHaveLength(12 + plaintext.length + 16);
  expect(sealed.includes(plaintext)).toBe(false);
});

test('each message gets a fresh nonce: the same plaintext seals differently every time', () => {
  const first = seal(plaintext, key, 'k1');
  const second = seal(plaintext, key, 'k1');
  expect(first.subarray(0, 12).equals(second.subarray(0, 12))).toBe(false);
  expect(first.equals(second)).toBe(false);
});

test('another key, another key id, or any changed byte is refused', () => {
  const sealed = seal(plaintext, key, 'k1');
  expect(() => open(sealed, randomBytes(32), 'k1')).toThrow();
  // The id is authenticated: a blob cannot be passed off under another key's id.
  expect(() => open(sealed, key, 'k2')).toThrow();
  for (const at of [0, 12, sealed.length - 1]) {
    const tampered = Buffer.from(sealed);
    tampered[at] = tampered[at]! ^ 1;
    expect(() => open(tampered, key, 'k1')).toThrow();
  }
  expect(() => open(sealed.subarray(0, sealed.length - 1), key, 'k1')).toThrow();
});

test('data shorter than a nonce and a tag is refused as such', () => {
  expect(() => open(Buffer.alloc(27), key, 'k1')).toThrow('encrypted data too short');
});
