/** What every client command shares: a connection to Temporal, and the usage error the CLI prints its usage for. */
import { Client, Connection } from '@temporalio/client';
import { contentExternalStorage } from '../activities/store/external-storage';
import { openStore, type Store } from '../activities/store/open-store';
import { storeSetting } from '../activities/store/store-setting';
import { temporalSettings } from '../worker-config';

export class UsageError extends Error {}

/** A client with the store (AGENT_STORE) its results, transcripts and snapshots are read from. */
export async function withClient<T>(environment: NodeJS.ProcessEnv, work: (client: Client, store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(storeSetting(environment));
  const { address, namespace } = temporalSettings(environment);
  const connection = await Connection.connect({ address }).catch((error: Error) => {
    void store.close();
    throw new Error(`cannot connect to Temporal at ${address} (TEMPORAL_ADDRESS): ${error.message}`);
  });
  try {
    // Payloads over 256 KB live in the store; a client reads them where the workers wrote them.
    return await work(new Client({ connection, namespace, dataConverter: { externalStorage: contentExternalStorage(store) } }), store);
  } finally {
    await connection.close();
    await store.close();
  }
}

