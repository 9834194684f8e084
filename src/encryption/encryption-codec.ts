/**
 * The payload codec: every payload a worker or client sends to Temporal is encrypted with the
 * current key (AES-256-GCM), its key id in the metadata, and decrypted with whichever listed key
 * it names. Payloads that are not encrypted pass through: a session started with the `temporal`
 * CLI and plain JSON input works without the codec on the CLI's side.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { open, seal } from './aes-gcm';
import type { EncryptionKeys } from './keys';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const PayloadProto = temporal.api.common.v1.Payload;
const utf8 = (text: string) => new TextEncoder().encode(text);

export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keys: EncryptionKeys) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys.current;
    return payloads.map((payload) => ({
      metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(id) },
      data: seal(
        PayloadProto.encode(PayloadProto.create(payload as temporal.api.common.v1.IPayload)).finish(),
        key,
        id,
      ),
    }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!isEncrypted(payload)) return payload;
      const id = new TextDecoder().decode(payload.metadata![KEY_ID_METADATA] ?? new Uint8Array());
      const key = this.keys.byId.get(id);
      if (!key)
        throw new Error(
          `a payload is encrypted with key "${id}", which is not among the keys of AGENT_ENCRYPTION_KEY: add it (after the current one)`,
        );
      return PayloadProto.decode(open(payload.data ?? new Uint8Array(), key, id)) as Payload;
    });
  }
}

export function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && new TextDecoder().decode(encoding) === ENCRYPTED_ENCODING;
}
