/** What every client command shares: a connection to Temporal, and the usage error the CLI prints its usage for. */
import { Client, Connection } from '@temporalio/client';
import { contentExternalStorage } from '../activities/store/external-storage';
import { contentDirectory, temporalSettings } from '../worker-config';

export class UsageError extends Error {}

export async function withClient<T>(environment: NodeJS.ProcessEnv, work: (client: Client) => Promise<T>): Promise<T> {
  const { address, namespace } = temporalSettings(environment);
  const connection = await Connection.connect({ address }).catch((error: Error) => {
    throw new Error(`cannot connect to Temporal at ${address} (TEMPORAL_ADDRESS): ${error.message}`);
  });
  try {
    // Payloads over 256 KB live in the content store; a client on the worker's host reads them there.
    return await work(new Client({ connection, namespace, dataConverter: { externalStorage: contentExternalStorage(contentDirectory(environment)) } }));
  } finally {
    await connection.close();
  }
}

