/**
 * Temporal External Storage over our content store: the safety net under the design that keeps
 * conversation content out of history. Any payload over 256 KB, whatever produced it (a huge
 * Write in a model reply, a giant final answer), is stored by reference instead of bloating
 * history or failing the workflow at the 2 MB payload limit.
 */
import { ExternalStorage, type Payload, type StorageDriver, StorageDriverClaim } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { ContentStore } from './content-store';
import type { Store } from './open-store';

const PayloadProto = temporal.api.common.v1.Payload;

export class ContentStoreDriver implements StorageDriver {
  readonly name = 'durable-agent-content-store';
  readonly type = 'content-store';

  constructor(private readonly content: ContentStore) {}

  async store(_context: unknown, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    const claims: StorageDriverClaim[] = [];
    for (const payload of payloads) {
      // Content-addressed: storing the same payload again on a retry is harmless.
      const bytes = PayloadProto.encode(PayloadProto.create(payload as temporal.api.common.v1.IPayload)).finish();
      claims.push(new StorageDriverClaim({ ref: await this.content.put(Buffer.from(bytes).toString('base64')) }));
    }
    return claims;
  }

  async retrieve(_context: unknown, claims: StorageDriverClaim[]): Promise<Payload[]> {
    const payloads: Payload[] = [];
    for (const claim of claims) {
      const encoded = await this.content.get(claim.claimData.ref!);
      payloads.push(PayloadProto.decode(Buffer.from(encoded, 'base64')) as Payload);
    }
    return payloads;
  }
}

/** The data converter's external storage, shared by the worker and every client of a queue (the same AGENT_STORE). */
export function contentExternalStorage(store: Pick<Store, 'payloads'>): ExternalStorage {
  return new ExternalStorage({ drivers: [new ContentStoreDriver(store.payloads)] });
}
