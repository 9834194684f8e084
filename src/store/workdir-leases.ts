/**
 * Workdir leases: one session at a time works in a workdir. A lease names its holder (the
 * session's workflow id and first run id, which continue-as-new keeps, and its namespace) and
 * when it expires; the holder releases it when it closes, and anyone may take it once it has
 * expired, or take it over from a holder that Temporal says has ended (`takeOver`: the store
 * knows nothing of Temporal, the lease activities ask). Sessions lease their workdir until they
 * end (a long expiry nothing renews); sessions started before renewed a short one.
 * Keyed by the workdir's host and real path.
 *
 * The file store keeps a lease as a sequence of generation files `<n>.json`, each written under
 * a temporary name and linked into place: `link` fails when the name exists, so of two writers
 * of generation n+1 exactly one wins and the other reads again. Nothing is ever overwritten, so
 * a reader never sees half a record and a renewal never undoes a release. Workers sharing the
 * store's directory (one host, or a mount every host sees) share its leases.
 */
import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Who holds a lease: a session, across its continue-as-new runs (a reused workflow id is another
 * session), and the namespace where Temporal knows it (recorded, not part of who it is).
 */
export interface LeaseHolder {
  workflowId: string;
  firstRunId: string;
  namespace?: string;
}

export type TakeOutcome = { taken: true } | { taken: false; holder: LeaseHolder; expiresAt: number };

/** `released`: nobody holds it now (its holder let it go); `lost`: another session holds it, or held it since. */
export type RenewOutcome = 'renewed' | 'released' | 'lost';

export interface WorkdirLeases {
  /** Takes the lease when it is free, expired or already the holder's (then it is renewed). */
  take(key: string, holder: LeaseHolder, ttlMs: number): Promise<TakeOutcome>;
  /** Extends the holder's lease, unless it is no longer the holder's. */
  renew(key: string, holder: LeaseHolder, ttlMs: number): Promise<RenewOutcome>;
  /** Frees the lease if the holder has it; nothing otherwise. */
  release(key: string, holder: LeaseHolder): Promise<void>;
  /**
   * Takes the lease from `from`, a holder found ended, unless it changed hands since (then as
   * `take`: the new holder is told). Two sessions taking over at once: one of them gets it.
   */
  takeOver(key: string, from: LeaseHolder, holder: LeaseHolder, ttlMs: number): Promise<TakeOutcome>;
}

interface LeaseRecord extends LeaseHolder {
  expiresAt: number;
  released?: true;
}

export const sameHolder = (a: LeaseHolder, b: LeaseHolder) =>
  a.workflowId === b.workflowId && a.firstRunId === b.firstRunId;

const holderOf = (record: LeaseHolder): LeaseHolder => ({
  workflowId: record.workflowId,
  firstRunId: record.firstRunId,
  ...(record.namespace !== undefined ? { namespace: record.namespace } : {}),
});

const GENERATION = /^(\d{12})\.json$/;
/** Writers that keep losing the race give up after this many reads (the caller retries). */
const ATTEMPTS = 20;

export class FileWorkdirLeases implements WorkdirLeases {
  constructor(
    readonly directory: string,
    private readonly now: () => number = Date.now,
  ) {}

  async take(key: string, holder: LeaseHolder, ttlMs: number): Promise<TakeOutcome> {
    return this.change<TakeOutcome>(key, (current) => {
      const busy = current && !current.released && current.expiresAt > this.now() && !sameHolder(current, holder);
      if (busy) return { outcome: { taken: false, holder: holderOf(current), expiresAt: current.expiresAt } };
      return { outcome: { taken: true }, next: { ...holder, expiresAt: this.now() + ttlMs } };
    });
  }

  async takeOver(key: string, from: LeaseHolder, holder: LeaseHolder, ttlMs: number): Promise<TakeOutcome> {
    return this.change<TakeOutcome>(key, (current) => {
      const busy =
        current &&
        !current.released &&
        current.expiresAt > this.now() &&
        !sameHolder(current, holder) &&
        !sameHolder(current, from);
      if (busy) return { outcome: { taken: false, holder: holderOf(current), expiresAt: current.expiresAt } };
      return { outcome: { taken: true }, next: { ...holder, expiresAt: this.now() + ttlMs } };
    });
  }

  async renew(key: string, holder: LeaseHolder, ttlMs: number): Promise<RenewOutcome> {
    return this.change<RenewOutcome>(key, (current) => {
      // A released record names who released it: only the holder itself can have.
      if (!current || (current.released && sameHolder(current, holder))) return { outcome: 'released' };
      if (current.released || !sameHolder(current, holder)) return { outcome: 'lost' };
      return { outcome: 'renewed', next: { ...holder, expiresAt: this.now() + ttlMs } };
    });
  }

  async release(key: string, holder: LeaseHolder): Promise<void> {
    await this.change(key, (current) => {
      if (!current || current.released || !sameHolder(current, holder)) return { outcome: undefined };
      return { outcome: undefined, next: { ...holder, expiresAt: 0, released: true } };
    });
  }

  /** Reads the latest generation, decides, and writes the next one; read again when another writer won. */
  private async change<T>(
    key: string,
    decide: (current: LeaseRecord | undefined) => { outcome: T; next?: LeaseRecord },
  ): Promise<T> {
    const folder = join(this.directory, createHash('sha256').update(key).digest('hex').slice(0, 40));
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const latest = await latestGeneration(folder);
      if (latest === 'moved') continue;
      const { outcome, next } = decide(latest.record);
      if (!next) return outcome;
      if (await writeGeneration(folder, latest.generation + 1, next)) {
        await removeBefore(folder, latest.generation + 1);
        return outcome;
      }
    }
    throw new Error(`the workdir lease ${key} kept changing while it was read: try again`);
  }
}

/** The newest generation and its record; `moved` when it was removed while being read (a newer one exists). */
async function latestGeneration(folder: string): Promise<{ generation: number; record?: LeaseRecord } | 'moved'> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const generations = names
    .map((name) => GENERATION.exec(name)?.[1])
    .filter((value) => value !== undefined)
    .map(Number);
  if (generations.length === 0) return { generation: 0 };
  const generation = Math.max(...generations);
  try {
    return { generation, record: JSON.parse(await readFile(join(folder, fileOf(generation)), 'utf8')) as LeaseRecord };
  } catch {
    return 'moved';
  }
}

async function writeGeneration(folder: string, generation: number, record: LeaseRecord): Promise<boolean> {
  await mkdir(folder, { recursive: true });
  const temporary = join(folder, `.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temporary, JSON.stringify(record));
  try {
    await link(temporary, join(folder, fileOf(generation)));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/** Older generations are history nobody reads: removed (best effort) so a lease stays one file. */
async function removeBefore(folder: string, generation: number): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const older = names.filter((name) => Number(GENERATION.exec(name)?.[1] ?? generation) < generation);
  await Promise.all(older.map((name) => rm(join(folder, name), { force: true })));
}

const fileOf = (generation: number) => `${String(generation).padStart(12, '0')}.json`;
