/**
 * The PostgreSQL store (`AGENT_STORE=postgres://…`) on a real throwaway cluster (started by
 * global-setup when PostgreSQL is installed; `.ci/run` installs it): versioned migrations that
 * workers starting together apply once, content and journal as the file store keeps them, a fast
 * failure naming AGENT_STORE, a session whose worker process keeps everything there, and workdir
 * leases as the file store keeps them.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Pool } from 'pg';
import { contentRef } from '../../src/store/content-store';
import { MIGRATIONS } from '../../src/store/postgres-store';
import { openStore, type Store } from '../../src/store/open-store';
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { Harness, makeRepo } from '../support/harness';
import { freePort } from '../support/global-setup';
import { describeWorkdirLeases } from '../support/workdir-leases';

jest.setTimeout(120_000);

const url = process.env.AGENT_TEST_POSTGRES_URL;
// Without PostgreSQL on the machine there is nothing to test against: `.ci/run` installs it, so
// CI always runs these; a developer machine without it skips them (and says so here).
const describeWithPostgres = url ? describe : describe.skip;

/** A fresh database of the cluster, so each test sees the schema as a new deployment would. */
async function freshDatabase(name: string): Promise<string> {
  const admin = new Pool({ connectionString: url });
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return url!.replace(/\/[^/]*$/, `/${name}`);
}

describeWithPostgres('the PostgreSQL store', () => {
  const opened: Store[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
  });
  const open = async (databaseUrl: string) => {
    const store = await openStore({ kind: 'postgres', url: databaseUrl });
    opened.push(store);
    return store;
  };

  test('workers starting together create the schema once, at the latest version', async () => {
    const databaseUrl = await freshDatabase('migrations_test');
    await Promise.all([open(databaseUrl), open(databaseUrl), open(databaseUrl)]);
    const pool = new Pool({ connectionString: databaseUrl });
    const { rows } = await pool.query<{ version: number }>(
      'SELECT version FROM durable_agent_migrations ORDER BY version',
    );
    await pool.end();
    expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((_, index) => index + 1));
  });

  test('content is content-addressed like the file store, and the journal keeps one record per call until the session closes', async () => {
    const store = await open(await freshDatabase('content_test'));
    const ref = await store.content.put('héllo');
    expect(ref).toBe(contentRef('héllo'));
    expect(await store.content.put('héllo')).toBe(ref);
    expect(await store.content.get(ref)).toBe('héllo');
    const bytes = Buffer.from([0, 1, 2, 255]);
    const binary = await store.content.putBytes(bytes);
    expect(await store.content.getBytes(binary)).toEqual(bytes);
    expect(await store.content.has(binary)).toBe(true);
    // Payloads and content are kept apart, as in the file store's folders.
    expect(await store.payloads.has(binary)).toBe(false);
    const missing = await store.content.get(`sha256:${'0'.repeat(64)}`).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApplicationFailure);
    expect((missing as ApplicationFailure).type).toBe('ContentMissing');
    expect((missing as ApplicationFailure).message).toContain('AGENT_STORE');

    const record = { path: '/repo/a.txt', beforeHash: null, afterHash: 'abc', message: 'Wrote a.txt' };
    await store.journal.record('session-1', 'run/1', record);
    await store.journal.record('session-1', 'run/1', record);
    expect(await store.journal.find('session-1', 'run/1')).toEqual(record);
    expect(await store.journal.find('session-2', 'run/1')).toBeUndefined();
    await store.journal.close('session-1');
    expect(await store.journal.find('session-1', 'run/1')).toBeUndefined();
  });

  test('a store that cannot be reached fails at once, naming AGENT_STORE and never the password', async () => {
    const port = await freePort();
    const failure = await openStore({
      kind: 'postgres',
      url: `postgres://agent:secret-password@127.0.0.1:${port}/store`,
    }).catch((error: Error) => error);
    expect((failure as Error).message).toMatch(
      /^cannot open the store AGENT_STORE=postgres:\/\/agent:\*\*\*@127\.0\.0\.1:\d+\/store: /,
    );
    expect((failure as Error).message).not.toContain('secret-password');
  });

  test('a session on a worker process with AGENT_STORE=postgres keeps its conversation there, and its edits once', async () => {
    const databaseUrl = await freshDatabase('session_test');
    const harness = await Harness.start();
    try {
      harness.fake.handler = byTurn([
        reply([toolUse('Write', { file_path: 'a.txt', content: 'one\n' })]),
        reply([text('Written.')]),
      ]);
      await harness.startWorkerProcess({ AGENT_STORE: databaseUrl });
      const clientStore = await open(databaseUrl);
      const handle = await harness.start({ prompt: 'write', workdir: makeRepo({}) });
      const result = await handle.result();
      expect(result).toMatchObject({ reason: 'completed', filesChanged: [{ path: 'a.txt', change: 'added' }] });
      const pool = new Pool({ connectionString: databaseUrl });
      const { rows } = await pool.query<{ count: string }>('SELECT count(*) FROM content_objects');
      await pool.end();
      expect(Number(rows[0]!.count)).toBeGreaterThan(5); // system prompt, conversation nodes, snapshot trees and blobs
      // A client on the same AGENT_STORE reads what the worker stored: the session's last snapshot.
      const state = await handle.query<{ snapshots: { ref: string }[] }>('state');
      expect(await clientStore.content.has(state.snapshots.at(-1)!.ref)).toBe(true);
    } finally {
      await harness.stop();
    }
  });
});

describeWithPostgres('the PostgreSQL store', () => {
  let store: Store | undefined;
  beforeAll(async () => {
    store = await openStore({ kind: 'postgres', url: await freshDatabase('agent_leases') });
  });
  afterAll(async () => {
    await store?.close();
  });
  describeWorkdirLeases('PostgreSQL', () => store!.leases);
});
