/**
 * A throwaway PostgreSQL cluster for the tests, from the machine's PostgreSQL binaries (Debian's
 * `postgresql` package; `.ci/run` installs it): initdb into a scratch directory, listening on
 * 127.0.0.1 only, trust authentication. As root (CI) it runs as the package's `postgres` user,
 * since PostgreSQL refuses to run as root; its directory is then made in the system's temporary
 * directory, which that user can reach wherever the checkout lies (a clone in a `mktemp -d`
 * directory is root's alone).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ThrowawayPostgres {
  url: string;
  dataDir: string;
  binDir: string;
}

/** The newest installed PostgreSQL's bin directory, or undefined. */
function binDirectory(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return join(root, newest, 'bin');
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  return found ? join(found, '..') : undefined;
}

/** Runs a PostgreSQL program, as `postgres` when this process is root. */
function run(binDir: string, program: string, args: string[]): void {
  const path = join(binDir, program);
  const asRoot = process.getuid?.() === 0;
  execFileSync(asRoot ? 'runuser' : path, asRoot ? ['-u', 'postgres', '--', path, ...args] : args, {
    stdio: 'pipe',
    cwd: '/',
  });
}

/** `scratch`: where the cluster lives when this process is not root (as root: the temporary directory). */
export function startThrowawayPostgres(scratch: string, port: number): ThrowawayPostgres | undefined {
  const binDir = binDirectory();
  if (!binDir) return undefined;
  const dataDir = process.getuid?.() === 0 ? mkdtempSync(join(tmpdir(), `durable-agent-postgres-${port}-`)) : scratch;
  mkdirSync(dataDir, { recursive: true });
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dataDir, uid, gid);
  }
  try {
    run(binDir, 'initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    // fsync off: a test cluster trades durability for speed; it is thrown away after the run.
    run(binDir, 'pg_ctl', [
      '-D',
      dataDir,
      '-w',
      '-l',
      join(dataDir, 'server.log'),
      '-o',
      `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  } catch (error) {
    // pg_ctl may give up waiting on a server that still comes up: stop it, whatever it got to.
    stopThrowawayPostgres({ dataDir, binDir });
    throw new Error(`the tests' PostgreSQL did not start in ${dataDir}: ${(error as Error).message}`);
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dataDir, binDir };
}

export function stopThrowawayPostgres({ dataDir, binDir }: Pick<ThrowawayPostgres, 'dataDir' | 'binDir'>): void {
  try {
    run(binDir, 'pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  } catch {
    // not running any more
  }
  if (dataDir.startsWith(join(tmpdir(), 'durable-agent-postgres-'))) rmSync(dataDir, { recursive: true, force: true });
}
