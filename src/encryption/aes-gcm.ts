/**
 * AES-256-GCM: a fresh 12-byte nonce per message, the 16-byte tag after the ciphertext, and the
 * key id as additional authenticated data, so a blob cannot be passed off under another key's id.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function seal(plaintext: Uint8Array, key: Buffer, keyId: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(keyId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]);
}

/** Throws when the data was not sealed with this key and id, or was altered. */
export function open(sealed: Uint8Array, key: Buffer, keyId: string): Buffer {
  const data = Buffer.from(sealed);
  if (data.length < NONCE_BYTES + TAG_BYTES) throw new Error('encrypted data too short');
  const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(keyId, 'utf8'));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  return Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
}
