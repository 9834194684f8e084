/** The data converter every worker and client builds: External Storage always, the codec when a key is set. */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, ExternalStorage } from '@temporalio/common';
import { agentDataConverter, describeEncryption } from '../../../src/temporal/data-converter';
import { EncryptionCodec, isEncrypted } from '../../../src/encryption/encryption-codec';
import { parseKeys } from '../../../src/encryption/keys';
import { LocalContentStore } from '../../../src/store/content-store';
import { scratchDir } from '../../support/paths';

const secret = () => randomBytes(32).toString('base64');
const store = () => ({ payloads: new LocalContentStore(scratchDir('payloads')) });

test('without a key: External Storage over the store, and no codec (payloads stay plaintext)', () => {
  const converter = agentDataConverter(store());
  expect(converter.externalStorage).toBeInstanceOf(ExternalStorage);
  expect(converter.payloadCodecs).toBeUndefined();
});

test("with a key: the encryption codec, so a worker's and a client's converters built from the same keys understand each other", async () => {
  const keys = `k1:${secret()}`;
  const worker = agentDataConverter(store(), parseKeys(keys));
  const client = agentDataConverter(store(), parseKeys(keys));
  expect(worker.externalStorage).toBeInstanceOf(ExternalStorage);
  expect(worker.payloadCodecs).toEqual([expect.any(EncryptionCodec)]);
  const payload = defaultPayloadConverter.toPayload({ prompt: 'the secret plan' });
  const [encrypted] = await worker.payloadCodecs![0]!.encode([payload]);
  expect(isEncrypted(encrypted!)).toBe(true);
  const [decoded] = await client.payloadCodecs![0]!.decode([encrypted!]);
  expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ prompt: 'the secret plan' });
});

test('the startup line says whether payloads are encrypted and with which key id, never the key', () => {
  expect(describeEncryption()).toBe(
    'payload encryption off (no AGENT_ENCRYPTION_KEY): history and the store hold plaintext',
  );
  const current = secret();
  expect(describeEncryption(parseKeys(`k2:${current}`))).toBe('payloads and the store encrypted with key "k2"');
  const rotated = describeEncryption(parseKeys(`k3:${current},k2:${secret()},k1:${secret()}`));
  expect(rotated).toBe('payloads and the store encrypted with key "k3" (2 older key(s) still decrypt)');
  expect(rotated).not.toContain(current);
});
