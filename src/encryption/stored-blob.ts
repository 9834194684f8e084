/**
 * Encryption at rest for what the store keeps (conversation content, snapshots' files, External
 * Storage payloads): an object is `DAENC1\0`, the key id's length and id, then the AES-256-GCM
 * message. References stay the hash of the plaintext, so content addressing (dedup, a retry
 * writing the same object) is unchanged. Objects written before encryption was turned on have
 * no header and are read as they are.
 */
import { open, seal } from './aes-gcm';
import type { EncryptionKeys } from './keys';

const MAGIC = Buffer.from('DAENC1\0', 'latin1');

export class BlobCipher {
  constructor(private readonly keys: EncryptionKeys) {}

  seal(plaintext: Buffer): Buffer {
    const { id, key } = this.keys.current;
    const idBytes = Buffer.from(id, 'utf8');
    return Buffer.concat([MAGIC, Buffer.from([idBytes.length]), idBytes, seal(plaintext, key, id)]);
  }

  open(stored: Buffer): Buffer {
    if (!isSealed(stored)) return stored;
    const idLength = stored[MAGIC.length]!;
    const id = stored.subarray(MAGIC.length + 1, MAGIC.length + 1 + idLength).toString('utf8');
    const key = this.keys.byId.get(id);
    if (!key)
      throw new Error(
        `a stored object is encrypted with key "${id}", which is not among the keys of AGENT_ENCRYPTION_KEY: add it (after the current one)`,
      );
    return open(stored.subarray(MAGIC.length + 1 + idLength), key, id);
  }
}

export function isSealed(stored: Buffer): boolean {
  return stored.length > MAGIC.length && stored.subarray(0, MAGIC.length).equals(MAGIC);
}
