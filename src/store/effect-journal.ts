import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Workdir } from '../workdir/workdir';

/**
 * Intent records for file edits, one per tool call, filed under its session.
 *
 * A Write or Edit records `{ path, beforeHash, afterHash }` before it replaces the file. If the
 * worker dies after the replace but before Temporal records the activity's completion, the retry
 * finds the record and the file already at `afterHash`, and reports the same success instead of
 * applying the edit twice or failing because the file "changed since it was read".
 *
 * A call is known by its run and activity id (`callKey`), which every retry of it shares and no
 * other call has: a tool_use id could repeat (a reused workflow id, an endpoint that numbers its
 * ids), and a repeated id must never pass for an edit already made.
 */
export interface EffectRecord {
  path: string;
  beforeHash: string | null;
  afterHash: string;
  message: string;
  /** The temporary file the write goes through (removed when the session closes, if a crash left it). */
  temporary?: string;
}

export interface EffectJournal {
  find(sessionId: string, callKey: string): Promise<EffectRecord | undefined>;
  record(sessionId: string, callKey: string, record: EffectRecord): Promise<void>;
  /** The session is over: its records go, and any temporary file a crash left behind with them. */
  close(sessionId: string): Promise<void>;
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex');

export class LocalEffectJournal implements EffectJournal {
  constructor(readonly directory: string) {}

  private folderOf(sessionId: string): string {
    return join(this.directory, hash(sessionId).slice(0, 32));
  }

  private pathOf(sessionId: string, callKey: string): string {
    return join(this.folderOf(sessionId), `${hash(callKey).slice(0, 40)}.json`);
  }

  async find(sessionId: string, callKey: string): Promise<EffectRecord | undefined> {
    try {
      return JSON.parse(await readFile(this.pathOf(sessionId, callKey), 'utf8')) as EffectRecord;
    } catch {
      return undefined;
    }
  }

  async record(sessionId: string, callKey: string, record: EffectRecord): Promise<void> {
    const path = this.pathOf(sessionId, callKey);
    await mkdir(join(path, '..'), { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, JSON.stringify(record), 'utf8');
    await rename(temporary, path);
  }

  async close(sessionId: string): Promise<void> {
    const folder = this.folderOf(sessionId);
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names.filter((entry) => entry.endsWith('.json'))) {
      const record = await readFile(join(folder, name), 'utf8').then(
        (text) => JSON.parse(text) as EffectRecord,
        () => undefined,
      );
      if (record?.temporary) removeTemporary(record.temporary);
    }
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * Removes a temporary file a crashed write left in a workdir. Its directory is opened from `/`
 * one component at a time without following links (the path was real when recorded): when the
 * session has put a symlink on the way since, nothing is removed, rather than a file elsewhere.
 */
export function removeTemporary(temporary: string): void {
  try {
    const directory = Workdir.open(dirname(temporary));
    try {
      directory.remove(basename(temporary));
    } finally {
      directory.close();
    }
  } catch {
    // Best effort: gone already, or its directory is no longer where it was.
  }
}
