/**
 * The data converter every worker and client of a deployment uses: External Storage over the
 * store, and, when a key is set, the encryption codec. Both sides must agree, so both build it here.
 */
import type { DataConverter } from '@temporalio/common';
import { contentExternalStorage } from '../store/external-storage';
import type { Store } from '../store/open-store';
import { EncryptionCodec } from '../encryption/encryption-codec';
import type { EncryptionKeys } from '../encryption/keys';

export function agentDataConverter(store: Pick<Store, 'payloads'>, encryption?: EncryptionKeys): DataConverter {
  return {
    externalStorage: contentExternalStorage(store),
    ...(encryption ? { payloadCodecs: [new EncryptionCodec(encryption)] } : {}),
  };
}

/** The startup line that says whether payloads are encrypted, and with which key (never the key). */
export function describeEncryption(encryption?: EncryptionKeys): string {
  if (!encryption) return 'payload encryption off (no AGENT_ENCRYPTION_KEY): history and the store hold plaintext';
  const others = encryption.byId.size - 1;
  return `payloads and the store encrypted with key "${encryption.current.id}"${others ? ` (${others} older key(s) still decrypt)` : ''}`;
}
