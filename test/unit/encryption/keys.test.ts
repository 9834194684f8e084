/** The deployment's keys: AGENT_ENCRYPTION_KEY or the file AGENT_ENCRYPTION_KEY_FILE names. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encryptionKeys, parseKeys } from '../../../src/encryption/keys';

const secret = () => randomBytes(32).toString('base64');

const keyFile = (content: string) => {
  const file = join(mkdtempSync(join(tmpdir(), 'keys-')), 'keys');
  writeFileSync(file, content);
  return file;
};

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

  test('each key is its 32 bytes, by id; spaces and empty entries around the commas are ignored', () => {
    const current = randomBytes(32);
    const old = randomBytes(32);
    const keys = parseKeys(` 2026-06:${current.toString('base64')} ,, 2025_12.a:${old.toString('base64')},`);
    expect(keys.current).toEqual({ id: '2026-06', key: current });
    expect(keys.byId).toEqual(
      new Map([
        ['2026-06', current],
        ['2025_12.a', old],
      ]),
    );
  });

  test('an entry with a bad key id fails at its position, never showing the key', () => {
    const key = secret();
    for (const text of [
      `a:${secret()},:${key}`,
      `a:${secret()},bad id:${key}`,
      `a:${secret()},${'i'.repeat(65)}:${key}`,
    ]) {
      expect(() => parseKeys(text)).toThrow(
        'AGENT_ENCRYPTION_KEY: entry 2 is not <key id>:<base64 of 32 bytes> (key ids: letters, digits, . _ -)',
      );
      expect(() => parseKeys(text)).not.toThrow(key);
    }
  });

  test('a value of only commas holds no key; an empty or blank variable means encryption is off', () => {
    expect(() => parseKeys(' , ,')).toThrow('AGENT_ENCRYPTION_KEY holds no key');
    expect(encryptionKeys({ AGENT_ENCRYPTION_KEY: '' })).toBeUndefined();
    expect(encryptionKeys({ AGENT_ENCRYPTION_KEY: '  \n' })).toBeUndefined();
    expect(encryptionKeys({ AGENT_ENCRYPTION_KEY: `k:${secret()}` })?.current.id).toBe('k');
  });

  test("a key file's errors name the file; an empty file means encryption is off", () => {
    const file = keyFile(`k1:${Buffer.alloc(31).toString('base64')}\n`);
    expect(() => encryptionKeys({ AGENT_ENCRYPTION_KEY_FILE: file })).toThrow(
      `AGENT_ENCRYPTION_KEY_FILE (${file}): key "k1" is 31 bytes, not 32 (AES-256)`,
    );
    expect(encryptionKeys({ AGENT_ENCRYPTION_KEY_FILE: keyFile('\n') })).toBeUndefined();
    const directory = mkdtempSync(join(tmpdir(), 'keys-'));
    expect(() => encryptionKeys({ AGENT_ENCRYPTION_KEY_FILE: directory })).toThrow(
      `AGENT_ENCRYPTION_KEY_FILE (${directory}): cannot read it: EISDIR`,
    );
  });
});
