/** What every client command shares: a connection to Temporal, and the usage error the CLI prints its usage for. */
import { Client, Connection } from '@temporalio/client';
import { agentDataConverter } from '../temporal/data-converter';
import { encryptionKeys } from '../encryption/keys';
import { openStore, type Store } from '../store/open-store';
import { storeSetting } from '../store/store-setting';
import { connectionOptions, describeConnection, temporalSettings } from '../temporal/temporal-connection';

// In a module of its own so the CLI can refuse bad arguments without loading the Temporal client.
export { UsageError } from './usage-error';

/** A client with the store (AGENT_STORE) its results, transcripts and snapshots are read from. */
export async function withClient<T>(
  environment: NodeJS.ProcessEnv,
  work: (client: Client, store: Store) => Promise<T>,
): Promise<T> {
  const encryption = encryptionKeys(environment);
  const store = await openStore(storeSetting(environment), encryption);
  const settings = temporalSettings(environment);
  const { address, namespace } = settings;
  const connection = await Connection.connect(connectionOptions(address, settings)).catch((error: Error) => {
    void store.close();
    throw new Error(
      `cannot connect to Temporal at ${describeConnection(address, settings)} (TEMPORAL_ADDRESS, TEMPORAL_TLS_*, TEMPORAL_API_KEY or the profile): ${error.message}`,
    );
  });
  try {
    // Payloads over 256 KB live in the store; a client reads them where the workers wrote them.
    return await work(
      new Client({ connection, namespace, dataConverter: agentDataConverter(store, encryption) }),
      store,
    );
  } finally {
    await connection.close();
    await store.close();
  }
}

/** How long a command waits for a worker to answer a query before it shows what Temporal recorded. */
export const QUERY_DEADLINE_MS = 3_000;

/**
 * A query (or any call) answered within QUERY_DEADLINE_MS, or undefined: a query needs a worker
 * to replay the session, and with none polling it would wait without end.
 */
export async function answeredInTime<T>(
  client: { withDeadline<R>(deadline: number, fn: () => Promise<R>): Promise<R> },
  call: () => Promise<T>,
): Promise<T | undefined> {
  const deadline = Date.now() + QUERY_DEADLINE_MS;
  return client.withDeadline(deadline, call).catch((error: Error) => {
    // The client wraps the gRPC error in a ServiceError: DEADLINE_EXCEEDED (4), or CANCELLED (1)
    // when the deadline ends the call from the client's side.
    for (let cause: unknown = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
      const code = (cause as { code?: unknown }).code;
      if (code === 4 || (code === 1 && Date.now() >= deadline - 100)) return undefined;
    }
    throw error;
  });
}
