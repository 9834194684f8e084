/**
 * Taking a snapshot of the working tree. Incremental, like git's index: a file whose size, mtime,
 * inode and executable bit are what the previous snapshot recorded is not read again, and a
 * directory in which nothing changed keeps its previous node (no serializing, no write). Re-taking
 * a snapshot of a big repository where a few files changed costs a listing and an lstat per file.
 */
import { lstatSync, readdirSync, readlinkSync, type Dirent } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileChange } from '../../shared/workspace';
import { putJson, type ContentStore } from '../store/content-store';
import { isGone, readFileContent } from './file-content';
import { IgnoreRules } from './ignore-rules';
import { Limiter } from './parallel';
import { compareSnapshots } from './tree';
import { byName, loadTree, treeNodeOf, type FileEntry, type LinkEntry, type TreeEntry } from './tree-node';

/** Files larger than this are hashed but not stored (their entry says `big`). */
export const SNAPSHOT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/**
 * Racy-mtime guard (git's "racily clean" problem): a file written within the same mtime tick as
 * the scan, then written again with the same size, keeps size, mtime and inode, so the next scan
 * would trust the stale entry and miss the change. A file modified this close to the scan (or
 * dated in the future) is recorded with `mt: 0`, which makes the next scan read it again. Two
 * seconds covers coarse filesystem timestamps (FAT, some network filesystems) and clock skew.
 */
const RACY_WINDOW_MS = 2000;

/** Crash leftovers of our own atomic writes (tools and restores): never part of a snapshot. */
const AGENT_TEMPORARY_SUFFIXES = ['.agent-tmp', '.agent-restore'];

/** Files read (and stored) at once: overlaps the I/O of a first snapshot without flooding the pool. */
const READ_CONCURRENCY = 16;

export interface SnapshotOptions {
  maxFileBytes?: number;
  signal?: AbortSignal;
}

export interface Snapshot {
  /** `sha256:<hex>` of the root tree node. */
  ref: string;
  /** Files and symlinks in the snapshot. */
  files: number;
  /** Against `previousRef`, sorted by path; empty without one. */
  changes: FileChange[];
}

interface Scan {
  store: ContentStore;
  workdir: string;
  maxFileBytes: number;
  /** Files modified at or after this time are recorded as racy (`mt: 0`). */
  racyFrom: number;
  signal?: AbortSignal;
  files: number;
  reads: Limiter;
}

export async function takeSnapshot(store: ContentStore, workdir: string, previousRef?: string, options: SnapshotOptions = {}): Promise<Snapshot> {
  const scan: Scan = {
    store,
    workdir,
    maxFileBytes: options.maxFileBytes ?? SNAPSHOT_MAX_FILE_BYTES,
    racyFrom: Date.now() - RACY_WINDOW_MS,
    signal: options.signal,
    files: 0,
    reads: new Limiter(READ_CONCURRENCY),
  };
  const rules = await IgnoreRules.forWorkdir(workdir);
  const ref = (await scanDirectory(scan, '', previousRef, rules)) ?? (await putJson(store, treeNodeOf([])));
  const changes = previousRef === undefined ? [] : await compareSnapshots(store, previousRef, ref, options.signal);
  return { ref, files: scan.files, changes };
}

export function isAgentTemporary(name: string): boolean {
  return AGENT_TEMPORARY_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/**
 * The node of one directory, or undefined when nothing in it is recorded (like git, a snapshot
 * holds no empty directories). `previousRef` is this directory's node in the previous snapshot,
 * loaded only now that the directory is visited.
 *
 * Listing, lstat and readlink are synchronous on purpose: they answer from the kernel's caches
 * in microseconds, far less than a round trip through libuv's thread pool and a promise, and
 * they are the calls made for every directory and every file (measured: a re-snapshot of 10,000
 * files took half the time it took with the promise versions). Reading files, the slow part and
 * only for files that changed, goes through the thread pool, several at a time.
 */
async function scanDirectory(scan: Scan, relative: string, previousRef: string | undefined, inherited: IgnoreRules): Promise<string | undefined> {
  scan.signal?.throwIfAborted();
  const absolute = relative === '' ? scan.workdir : join(scan.workdir, relative);
  let dirents: Dirent[];
  try {
    dirents = readdirSync(absolute, { withFileTypes: true });
  } catch (error) {
    // The workdir itself must be there; a subdirectory removed while scanning holds nothing now.
    if (relative !== '' && isGone(error as NodeJS.ErrnoException)) return undefined;
    throw error;
  }
  const previous = previousRef === undefined ? new Map<string, TreeEntry>() : await loadTree(scan.store, previousRef);
  const rules = await withOwnGitignore(inherited, absolute, relative, dirents);
  dirents.sort((a, b) => byName(a.name, b.name));

  // Unchanged files are settled synchronously; only directories and files to read are awaited,
  // all together (reads are bounded by the limiter). Few promises: less garbage to collect.
  const names: string[] = [];
  const pending: (TreeEntry | Promise<TreeEntry | undefined> | undefined)[] = [];
  for (const dirent of dirents) {
    const name = dirent.name;
    if (name === '.git' || isAgentTemporary(name)) continue;
    const path = relative === '' ? name : `${relative}/${name}`;
    const before = previous.get(name);
    if (dirent.isDirectory()) {
      if (rules.ignores(path, true)) continue;
      names.push(name);
      pending.push(directoryEntry(scan, path, before, rules));
    } else if ((dirent.isFile() || dirent.isSymbolicLink()) && !rules.ignores(path, false)) {
      names.push(name);
      pending.push(leafEntry(scan, join(absolute, name), before));
    }
  }
  const settled = await Promise.all(pending);
  const entries: [string, TreeEntry][] = [];
  let unchanged = previousRef !== undefined;
  for (let index = 0; index < names.length; index++) {
    const entry = settled[index];
    if (entry === undefined) continue;
    if (entry.t !== 'd') scan.files++;
    if (entry !== previous.get(names[index]!)) unchanged = false;
    entries.push([names[index]!, entry]);
  }
  // Every entry is the previous one, and none went away: the node would serialize the same.
  if (unchanged && entries.length === previous.size) return previousRef;
  if (entries.length === 0) return undefined;
  return putJson(scan.store, treeNodeOf(entries));
}

async function directoryEntry(scan: Scan, path: string, before: TreeEntry | undefined, rules: IgnoreRules): Promise<TreeEntry | undefined> {
  const ref = await scanDirectory(scan, path, before?.t === 'd' ? before.h : undefined, rules);
  if (ref === undefined) return undefined;
  return before?.t === 'd' && before.h === ref ? before : { t: 'd', h: ref };
}

async function withOwnGitignore(inherited: IgnoreRules, absolute: string, relative: string, dirents: Dirent[]): Promise<IgnoreRules> {
  // Only a regular .gitignore counts: git does not follow a symlinked one either.
  if (!dirents.some((dirent) => dirent.name === '.gitignore' && dirent.isFile())) return inherited;
  const text = await readFile(join(absolute, '.gitignore'), 'utf8').catch(() => undefined);
  return text === undefined ? inherited : inherited.withGitignore(relative, text);
}

/** A file or symlink: the previous entry itself, without a promise, when it is known unchanged. */
function leafEntry(scan: Scan, path: string, before: TreeEntry | undefined): FileEntry | LinkEntry | Promise<FileEntry | undefined> | undefined {
  let info;
  try {
    info = lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if (isGone(error as NodeJS.ErrnoException)) return undefined;
    throw error;
  }
  if (info === undefined) return undefined;
  if (info.isSymbolicLink()) return linkEntry(path, before);
  if (!info.isFile()) return undefined;
  const executable = (info.mode & 0o100) !== 0;
  if (before?.t === 'f' && before.mt !== 0 && before.mt === info.mtimeMs && before.s === info.size && before.i === info.ino && Boolean(before.x) === executable) {
    return before;
  }
  return scan.reads.run(() => readFileEntry(scan, path));
}

function linkEntry(path: string, before: TreeEntry | undefined): LinkEntry | undefined {
  let to: string;
  try {
    to = readlinkSync(path);
  } catch (error) {
    // EINVAL: no longer a symlink; the next snapshot will see what it became.
    if ((error as NodeJS.ErrnoException).code === 'EINVAL' || isGone(error as NodeJS.ErrnoException)) return undefined;
    throw error;
  }
  return before?.t === 'l' && before.to === to ? before : { t: 'l', to };
}

async function readFileEntry(scan: Scan, path: string): Promise<FileEntry | undefined> {
  scan.signal?.throwIfAborted();
  const content = await readFileContent(path, scan.maxFileBytes);
  if (content === undefined) return undefined;
  const { info } = content;
  // Only new content is written: the store skips objects it already holds.
  const hash = content.data === undefined ? content.hash : await scan.store.putBytes(content.data);
  // Read while it was being written (size differs from its stat), or racy: read it again next time.
  const racy = content.size !== info.size || info.mtimeMs >= scan.racyFrom;
  return {
    t: 'f',
    h: hash,
    s: content.size,
    ...((info.mode & 0o100) !== 0 && { x: true as const }),
    mt: racy ? 0 : info.mtimeMs,
    i: info.ino,
    ...(content.data === undefined && { big: true as const }),
  };
}
