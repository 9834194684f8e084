import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Intent records for file edits, keyed by session and `tool_use` id.
 *
 * A Write or Edit records `{ path, beforeHash, afterHash }` before it replaces the file. If the
 * worker dies after the replace but before Temporal records the activity's completion, the retry
 * finds the record and the file already at `afterHash`, and reports the same success instead of
 * applying the edit twice or failing because the file "changed since it was read".
 */
export interface EffectRecord {
  path: string;
  beforeHash: string | null;
  afterHash: string;
  message: string;
}

export interface EffectJournal {
  find(sessionId: string, toolUseId: string): Promise<EffectRecord | undefined>;
  record(sessionId: string, toolUseId: string, record: EffectRecord): Promise<void>;
}

export class LocalEffectJournal implements EffectJournal {
  constructor(readonly directory: string) {}

  private pathOf(sessionId: string, toolUseId: string): string {
    const key = createHash('sha256').update(`${sessionId}\u0000${toolUseId}`).digest('hex');
    return join(this.directory, key.slice(0, 2), `${key.slice(2)}.json`);
  }

  async find(sessionId: string, toolUseId: string): Promise<EffectRecord | undefined> {
    try {
      return JSON.parse(await readFile(this.pathOf(sessionId, toolUseId), 'utf8')) as EffectRecord;
    } catch {
      return undefined;
    }
  }

  async record(sessionId: string, toolUseId: string, record: EffectRecord): Promise<void> {
    const path = this.pathOf(sessionId, toolUseId);
    await mkdir(join(path, '..'), { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, JSON.stringify(record), 'utf8');
    await rename(temporary, path);
  }
}
