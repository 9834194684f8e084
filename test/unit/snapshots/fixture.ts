/** A real working tree in a scratch directory and a real content store beside it. */
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  lstatSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { LocalContentStore } from '../../../src/store/content-store';
import { scratchDir } from '../../support/paths';

/** An hour ago: older than the racy-mtime window, so snapshots trust these files' stat. */
export const LONG_AGO = new Date(Date.now() - 3600_000);

/** Each write gets its own old mtime (a second apart), so a rewrite of the same size still shows. */
let writes = 0;
const nextOldMtime = () => new Date(LONG_AGO.getTime() + 1000 * ++writes);

export interface Workspace {
  workdir: string;
  store: LocalContentStore;
  /** Writes a file (parents created), dated about an hour ago unless `recent`. */
  write(path: string, content: string | Buffer, options?: { executable?: boolean; recent?: boolean }): void;
  link(path: string, target: string): void;
  read(path: string): string;
  /** Every file and symlink under the workdir (`.git` included), as `path → content` or `path → -> target`. */
  listing(root?: string): Record<string, string>;
}

export function workspace(name = 'workspace'): Workspace {
  const base = scratchDir(name);
  const workdir = join(base, 'repo');
  mkdirSync(workdir);
  const store = new LocalContentStore(join(base, 'store'));
  return {
    workdir,
    store,
    write(path, content, { executable = false, recent = false } = {}) {
      const absolute = join(workdir, path);
      mkdirSync(join(absolute, '..'), { recursive: true });
      writeFileSync(absolute, content);
      chmodSync(absolute, executable ? 0o755 : 0o644);
      if (!recent) utimesSync(absolute, nextOldMtime(), nextOldMtime());
    },
    link(path, target) {
      mkdirSync(join(workdir, path, '..'), { recursive: true });
      symlinkSync(target, join(workdir, path));
    },
    read: (path) => readFileSync(join(workdir, path), 'utf8'),
    listing: (root = workdir) => listing(root),
  };
}

export function listing(root: string, prefix = ''): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of readdirSync(join(root, prefix)).sort()) {
    const path = prefix ? `${prefix}/${name}` : name;
    const info = lstatSync(join(root, path));
    if (info.isSymbolicLink()) found[path] = `-> ${readlinkSync(join(root, path))}`;
    else if (info.isDirectory()) Object.assign(found, listing(root, path));
    else found[path] = `${readFileSync(join(root, path), 'utf8')}${(info.mode & 0o100) !== 0 ? ' (x)' : ''}`;
  }
  return found;
}
