/**
 * The store on PostgreSQL (`AGENT_STORE=postgres://…`), through `pg`: content-addressed objects
 * (conversation content, snapshots, External Storage payloads), the edit journal and workdir leases, shared by
 * every worker on every host. The schema is created or migrated by versioned migrations when a
 * worker or client opens the store, under an advisory lock so that workers starting together
 * migrate once.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { Pool } from 'pg';
import { ErrorType } from '../shared/errors';
import type { BlobCipher } from '../encryption/stored-blob';
import { type ContentStore, contentRef, RecentObjects } from './content-store';
import { type EffectJournal, type EffectRecord, removeTemporary } from './effect-journal';
import type { LeaseHolder, RenewOutcome, TakeOutcome, WorkdirLeases } from './workdir-leases';

/** Applied in order, each once; a new version is a new entry at the end, never an edit. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE content_objects (ref text PRIMARY KEY, data bytea NOT NULL);
   CREATE TABLE effect_journal (
     session text NOT NULL,
     call_key text NOT NULL,
     record jsonb NOT NULL,
     PRIMARY KEY (session, call_key)
   );`,
  `CREATE TABLE workdir_leases (
     lease_key text PRIMARY KEY,
     workflow_id text NOT NULL,
     first_run_id text NOT NULL,
     expires_at timestamptz NOT NULL
   );`,
  // The holder's Temporal namespace, where a session that finds the lease busy asks whether it still runs.
  `ALTER TABLE workdir_leases ADD COLUMN namespace text;`,
];

/** Any number: the key of the advisory lock that serializes migrations. */
const MIGRATION_LOCK = 4_815_162_342;

export async function migrate(pool: Pool): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS durable_agent_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number }>(
      'SELECT coalesce(max(version), 0) AS version FROM durable_agent_migrations',
    );
    const current = Number(rows[0]!.version);
    if (current > MIGRATIONS.length)
      throw new Error(
        `the database's schema is version ${current}, newer than this release knows (${MIGRATIONS.length}): upgrade the worker`,
      );
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1]!);
      await client.query('INSERT INTO durable_agent_migrations (version) VALUES ($1)', [version]);
    }
    await client.query('COMMIT');
    return MIGRATIONS.length;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export class PostgresContentStore implements ContentStore {
  private readonly cache = new RecentObjects();

  constructor(
    private readonly pool: Pool,
    /** Keeps External Storage payloads apart from content, as the file store's folders do. */
    private readonly namespace: 'objects' | 'payloads' = 'objects',
    /** Encrypts objects at rest when the deployment has a key (AGENT_ENCRYPTION_KEY). */
    private readonly cipher?: BlobCipher,
  ) {}

  private key(ref: string): string {
    return this.namespace === 'objects' ? ref : `payloads/${ref}`;
  }

  async put(data: string): Promise<string> {
    const ref = await this.putBytes(Buffer.from(data, 'utf8'));
    this.cache.remember(ref, data);
    return ref;
  }

  async putBytes(data: Buffer): Promise<string> {
    const ref = contentRef(data);
    // Content-addressed: a second writer of the same object (a retry, another host) changes nothing.
    await this.pool.query('INSERT INTO content_objects (ref, data) VALUES ($1, $2) ON CONFLICT (ref) DO NOTHING', [
      this.key(ref),
      this.cipher ? this.cipher.seal(data) : data,
    ]);
    return ref;
  }

  async get(ref: string): Promise<string> {
    const cached = this.cache.get(ref);
    if (cached !== undefined) return cached;
    const text = (await this.getBytes(ref)).toString('utf8');
    this.cache.remember(ref, text);
    return text;
  }

  async getBytes(ref: string): Promise<Buffer> {
    const { rows } = await this.pool.query<{ data: Buffer }>('SELECT data FROM content_objects WHERE ref = $1', [
      this.key(ref),
    ]);
    if (!rows[0]) {
      throw ApplicationFailure.nonRetryable(
        `Content ${ref} is missing from the PostgreSQL store. Every worker of a task queue must use the same AGENT_STORE.`,
        ErrorType.ContentMissing,
      );
    }
    return this.cipher ? this.cipher.open(rows[0].data) : rows[0].data;
  }

  async has(ref: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM content_objects WHERE ref = $1', [this.key(ref)]);
    return (rowCount ?? 0) > 0;
  }
}

const sessionKey = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex').slice(0, 32);

/** The edit journal in PostgreSQL: one row per call, written in a transaction of its own. */
export class PostgresEffectJournal implements EffectJournal {
  constructor(private readonly pool: Pool) {}

  async find(sessionId: string, callKey: string): Promise<EffectRecord | undefined> {
    const { rows } = await this.pool.query<{ record: EffectRecord }>(
      'SELECT record FROM effect_journal WHERE session = $1 AND call_key = $2',
      [sessionKey(sessionId), callKey],
    );
    return rows[0]?.record;
  }

  async record(sessionId: string, callKey: string, record: EffectRecord): Promise<void> {
    await this.pool.query(
      'INSERT INTO effect_journal (session, call_key, record) VALUES ($1, $2, $3) ON CONFLICT (session, call_key) DO UPDATE SET record = EXCLUDED.record',
      [sessionKey(sessionId), callKey, JSON.stringify(record)],
    );
  }

  async close(sessionId: string): Promise<void> {
    const { rows } = await this.pool.query<{ record: EffectRecord }>(
      'DELETE FROM effect_journal WHERE session = $1 RETURNING record',
      [sessionKey(sessionId)],
    );
    // A temporary file a crash left behind lives on the host that wrote it (best effort elsewhere).
    for (const { record } of rows) if (record.temporary) removeTemporary(record.temporary);
  }
}

/**
 * Workdir leases in PostgreSQL: one row per workdir, changed by single statements (each its own
 * transaction), on the database's clock, so hosts whose clocks differ agree on what has expired.
 */
export class PostgresWorkdirLeases implements WorkdirLeases {
  constructor(private readonly pool: Pool) {}

  async take(key: string, holder: LeaseHolder, ttlMs: number): Promise<TakeOutcome> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO workdir_leases (lease_key, workflow_id, first_run_id, namespace, expires_at) VALUES ($1, $2, $3, $5, now() + $4 * interval '1 millisecond')
       ON CONFLICT (lease_key) DO UPDATE SET workflow_id = EXCLUDED.workflow_id, first_run_id = EXCLUDED.first_run_id, namespace = EXCLUDED.namespace, expires_at = EXCLUDED.expires_at
       WHERE workdir_leases.expires_at <= now() OR (workdir_leases.workflow_id = EXCLUDED.workflow_id AND workdir_leases.first_run_id = EXCLUDED.first_run_id)`,
      [key, holder.workflowId, holder.firstRunId, ttlMs, holder.namespace ?? null],
    );
    if ((rowCount ?? 0) > 0) return { taken: true };
    return (await this.busy(key)) ?? this.take(key, holder, ttlMs);
  }

  async takeOver(key: string, from: LeaseHolder, holder: LeaseHolder, ttlMs: number): Promise<TakeOutcome> {
    const { rowCount } = await this.pool.query(
      `UPDATE workdir_leases SET workflow_id = $4, first_run_id = $5, namespace = $7, expires_at = now() + $6 * interval '1 millisecond'
       WHERE lease_key = $1 AND workflow_id = $2 AND first_run_id = $3`,
      [key, from.workflowId, from.firstRunId, holder.workflowId, holder.firstRunId, ttlMs, holder.namespace ?? null],
    );
    // Not `from`'s any more: released (free), expired, this session's own, or another's.
    return (rowCount ?? 0) > 0 ? { taken: true } : this.take(key, holder, ttlMs);
  }

  /** Who holds the lease now, or undefined when nobody does (released between two statements: free again). */
  private async busy(key: string): Promise<TakeOutcome | undefined> {
    const { rows } = await this.pool.query<{
      workflow_id: string;
      first_run_id: string;
      namespace: string | null;
      expires_at: Date;
    }>('SELECT workflow_id, first_run_id, namespace, expires_at FROM workdir_leases WHERE lease_key = $1', [key]);
    const row = rows[0];
    if (!row) return undefined;
    const holder = {
      workflowId: row.workflow_id,
      firstRunId: row.first_run_id,
      ...(row.namespace !== null ? { namespace: row.namespace } : {}),
    };
    return { taken: false, holder, expiresAt: row.expires_at.getTime() };
  }

  async renew(key: string, holder: LeaseHolder, ttlMs: number): Promise<RenewOutcome> {
    const { rowCount } = await this.pool.query(
      `UPDATE workdir_leases SET expires_at = now() + $4 * interval '1 millisecond' WHERE lease_key = $1 AND workflow_id = $2 AND first_run_id = $3`,
      [key, holder.workflowId, holder.firstRunId, ttlMs],
    );
    if ((rowCount ?? 0) > 0) return 'renewed';
    // A release deletes the row: none left is a lease nobody holds; another's row is a lease lost.
    const { rows } = await this.pool.query('SELECT 1 FROM workdir_leases WHERE lease_key = $1', [key]);
    return rows.length ? 'lost' : 'released';
  }

  async release(key: string, holder: LeaseHolder): Promise<void> {
    await this.pool.query(
      'DELETE FROM workdir_leases WHERE lease_key = $1 AND workflow_id = $2 AND first_run_id = $3',
      [key, holder.workflowId, holder.firstRunId],
    );
  }
}
