/**
 * Where sessions keep what does not belong in history (conversation content, the edit journal,
 * snapshots, External Storage payloads): `AGENT_STORE`, read by workers and by every client that
 * reads results or transcripts, so they all see the same store.
 *
 * - `file://<dir>`: a directory (shared by every worker of a queue: one host, or a shared mount);
 * - `postgres://…` (or `postgresql://…`): a PostgreSQL database, any number of hosts.
 *
 * `AGENT_CONTENT_DIR=<dir>` is the older name of `file://<dir>`.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type StoreSetting = { kind: 'file'; directory: string } | { kind: 'postgres'; url: string };

const read = (environment: NodeJS.ProcessEnv, name: string) => environment[name]?.trim() || undefined;

/** The default file store; the directory of releases before AGENT_STORE is kept when it holds content. */
function defaultDirectory(home: string): string {
  const store = join(home, '.durable-agent', 'store');
  const before = join(home, '.durable-agent', 'content');
  return !existsSync(store) && existsSync(before) ? before : store;
}

/** Reads `AGENT_STORE` (or `AGENT_CONTENT_DIR`); a value it cannot use fails with a message naming it. */
export function storeSetting(environment: NodeJS.ProcessEnv = process.env, home = homedir()): StoreSetting {
  const store = read(environment, 'AGENT_STORE');
  if (store === undefined) {
    const directory = read(environment, 'AGENT_CONTENT_DIR');
    return { kind: 'file', directory: directory ? resolve(directory) : defaultDirectory(home) };
  }
  if (/^postgres(ql)?:\/\//.test(store)) return { kind: 'postgres', url: store };
  if (store.startsWith('file://')) {
    let directory: string;
    try {
      directory = fileURLToPath(store);
    } catch (error) {
      throw new Error(`AGENT_STORE=${store}: not a file URL (${(error as Error).message}); use file:///absolute/dir`);
    }
    return { kind: 'file', directory };
  }
  if (isAbsolute(store)) return { kind: 'file', directory: store };
  throw new Error(
    `AGENT_STORE=${redacted(store)}: use file:///absolute/dir or postgres://user:password@host:5432/database`,
  );
}

/** What a log line or an error may say of a store: never its password. */
export function describeStore(setting: StoreSetting): string {
  return setting.kind === 'file' ? `file://${setting.directory}` : redacted(setting.url);
}

function redacted(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
