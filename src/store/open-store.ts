/**
 * Opens the store `AGENT_STORE` names, for a worker or a client: the same objects, journal and
 * External Storage payloads whichever backend holds them. A store that cannot be used fails at
 * once with a message naming `AGENT_STORE` (a worker must not start and then fail every session).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type ContentStore, LocalContentStore } from './content-store';
import { type EffectJournal, LocalEffectJournal } from './effect-journal';
import { FileWorkdirLeases, type WorkdirLeases } from './workdir-leases';
import { describeStore, type StoreSetting } from './store-setting';
import { FileLiveChannel } from '../live/file-live-channel';
import type { LiveChannel } from '../live/live-channel';
import { BlobCipher } from '../encryption/stored-blob';
import type { EncryptionKeys } from '../encryption/keys';

export interface Store {
  setting: StoreSetting;
  /** Conversation content and workspace snapshots. */
  content: ContentStore;
  /** Temporal External Storage payloads (kept apart from content). */
  payloads: ContentStore;
  journal: EffectJournal;
  /** Which session works in which workdir (one at a time). */
  leases: WorkdirLeases;
  /** Live output (text deltas, retries, tool progress) to the sessions' watchers, outside history. */
  live: LiveChannel;
  /** A file store's directory (never a workdir, nor inside one); undefined for PostgreSQL. */
  directory?: string;
  close(): Promise<void>;
}

/** Seconds a worker waits for PostgreSQL before it gives up starting. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * `encryption`: the deployment's keys (AGENT_ENCRYPTION_KEY); objects and payloads are then
 * encrypted at rest, and objects from before are still read.
 */
export async function openStore(setting: StoreSetting, encryption?: EncryptionKeys): Promise<Store> {
  const cipher = encryption ? new BlobCipher(encryption) : undefined;
  if (setting.kind === 'file') {
    const directory = setting.directory;
    const live = new FileLiveChannel(join(directory, 'live'));
    await mkdir(directory, { recursive: true }).catch((error: Error) => {
      throw new Error(`cannot use the store AGENT_STORE=${describeStore(setting)}: ${error.message}`);
    });
    return {
      setting,
      content: new LocalContentStore(join(directory, 'objects'), cipher),
      payloads: new LocalContentStore(join(directory, 'payloads'), cipher),
      journal: new LocalEffectJournal(join(directory, 'journal')),
      leases: new FileWorkdirLeases(join(directory, 'leases')),
      live,
      directory,
      close: () => live.close(),
    };
  }
  // Loaded only for PostgreSQL: a CLI command on the file store starts without the driver.
  const { Pool } = await import('pg');
  const { migrate, PostgresContentStore, PostgresEffectJournal, PostgresWorkdirLeases } =
    await import('./postgres-store');
  const { PostgresLiveChannel } = await import('../live/postgres-live-channel');
  // allowExitOnIdle: idle connections must not keep a finished CLI or test process alive.
  const pool = new Pool({
    connectionString: setting.url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    max: 10,
    allowExitOnIdle: true,
  });
  // A connection that breaks while idle is dropped by the pool; without a listener it would crash the process.
  pool.on('error', () => undefined);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(`cannot open the store AGENT_STORE=${describeStore(setting)}: ${(error as Error).message}`);
  }
  return {
    setting,
    content: new PostgresContentStore(pool, 'objects', cipher),
    payloads: new PostgresContentStore(pool, 'payloads', cipher),
    journal: new PostgresEffectJournal(pool),
    leases: new PostgresWorkdirLeases(pool),
    live: new PostgresLiveChannel(pool, setting.url),
    close: () => pool.end(),
  };
}
