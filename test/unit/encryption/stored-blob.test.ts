/** Encryption at rest: what the store writes when a key is set, and reads back, old objects included. */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseKeys } from '../../../src/encryption/keys';
import { BlobCipher, isSealed } from '../../../src/encryption/stored-blob';
import { contentRef, LocalContentStore } from '../../../src/store/content-store';

const secret = () => randomBytes(32).toString('base64');
const plaintext = Buffer.from('the secret plan');

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

describe('BlobCipher', () => {
  test('a sealed object is DAENC1\\0, the key id with its length, then the message; it opens to the plaintext', () => {
    const cipher = new BlobCipher(parseKeys(`key-7:${secret()}`));
    const sealed = cipher.seal(plaintext);
    expect(sealed.subarray(0, 13)).toEqual(Buffer.from('DAENC1\0\x05key-7', 'latin1'));
    expect(sealed.includes(plaintext)).toBe(false);
    expect(isSealed(sealed)).toBe(true);
    expect(cipher.open(sealed)).toEqual(plaintext);
  });

  test('an object without the header is read as it is: written before encryption was on', () => {
    const cipher = new BlobCipher(parseKeys(`k1:${secret()}`));
    expect(cipher.open(plaintext)).toBe(plaintext);
    expect(isSealed(Buffer.from('DAENC1\0', 'latin1'))).toBe(false);
    expect(isSealed(Buffer.from('DAENC2\0xyz', 'latin1'))).toBe(false);
  });

  test('rotation: the first key seals, every listed key opens', () => {
    const old = `k1:${secret()}`;
    const sealedBefore = new BlobCipher(parseKeys(old)).seal(plaintext);
    const rotated = new BlobCipher(parseKeys(`k2:${secret()},${old}`));
    expect(rotated.open(sealedBefore)).toEqual(plaintext);
    const sealedAfter = rotated.seal(plaintext);
    expect(sealedAfter.subarray(7, 10).toString('latin1')).toBe('\x02k2');
    expect(rotated.open(sealedAfter)).toEqual(plaintext);
  });

  test('a key no longer listed is named in the error, with what to do', () => {
    const sealed = new BlobCipher(parseKeys(`k1:${secret()}`)).seal(plaintext);
    expect(() => new BlobCipher(parseKeys(`k2:${secret()}`)).open(sealed)).toThrow(
      'a stored object is encrypted with key "k1", which is not among the keys of AGENT_ENCRYPTION_KEY: add it (after the current one)',
    );
  });

  test('a changed byte, or a header relabelled to another listed key, is refused', () => {
    const keys = parseKeys(`k1:${secret()},k2:${secret()}`);
    const cipher = new BlobCipher(keys);
    const sealed = cipher.seal(plaintext);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 20] = tampered[tampered.length - 20]! ^ 1;
    expect(() => cipher.open(tampered)).toThrow();
    const relabelled = Buffer.from(sealed);
    relabelled.write('k2', 8, 'latin1');
    expect(() => cipher.open(relabelled)).toThrow();
  });
});
