/**
 * Taking a snapshot of the working tree. Incremental, like git's index: a file whose size, mtime,
 * inode and executable bit are what the previous snapshot recorded is not read again, and a
 * directory in which nothing changed keeps its previous node (no serializing, no write). Re-taking
 * a snapshot of a big repository where a few files changed costs a listing and an lstat per file.
 *
 * The walk goes through directory descriptors beneath the workdir (src/workdir/): a directory
 * swapped for a symlink to elsewhere while it runs is recorded as the link it now is, never
 * followed; FIFOs, sockets and devices are recorded as such and never opened; a file over the
 * size limit is recorded by its metadata and never read.
 */
import type { Dirent, Stats } from 'node:fs';
import type { FileChange } from '../shared/workspace';
import type { DirectoryHandle } from '../workdir/directory-handle';
import { Workdir } from '../workdir/workdir';
import { putJson, type ContentStore } from '../store/content-store';
import { metadataHash, readOpenedFile } from './file-content';
import { IgnoreRules } from './ignore-rules';
import { compareSnapshots } from './tree';
import {
  byName,
  loadTree,
  treeNodeOf,
  type FileEntry,
  type LinkEntry,
  type SpecialEntry,
  type TreeEntry,
} from './tree-node';

/**
 * Files larger than this are recorded by their metadata, not read or stored (their entry says
 * `big`): 64 MiB unless the worker's `AGENT_SNAPSHOT_MAX_FILE_BYTES` says otherwise.
 */
export const SNAPSHOT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The limit snapshots take unless told otherwise: one per worker process, set when its
 * activities are made (activities/index.ts), so that every snapshot of a session it takes —
 * after a call, a hook, a rewind, a move — records big files the same way (workers of one
 * deployment should agree on it too: a file recorded by metadata on one and by content on
 * another counts as changed once).
 */
let processMaxFileBytes = SNAPSHOT_MAX_FILE_BYTES;

export function setSnapshotMaxFileBytes(bytes: number): void {
  processMaxFileBytes = bytes;
}

export function snapshotMaxFileBytes(): number {
  return processMaxFileBytes;
}

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

/** Files read (and stored) at once: overlaps the I/O of a first snapshot without flooding the pool or the descriptor table. */
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
  maxFileBytes: number;
  /** Files modified at or after this time are recorded as racy (`mt: 0`). */
  racyFrom: number;
  signal?: AbortSignal;
  files: number;
  reads: ReadSlots;
  /** Previous tree nodes, loaded ahead of the walk reaching them (the walk itself goes one directory at a time). */
  previousNodes: Map<string, Promise<Map<string, TreeEntry>>>;
}

export async function takeSnapshot(
  store: ContentStore,
  workdir: string,
  previousRef?: string,
  options: SnapshotOptions = {},
): Promise<Snapshot> {
  return Workdir.using(workdir, (opened) => snapshotOf(store, opened, previousRef, options));
}

/** A snapshot of an open workdir. */
export async function snapshotOf(
  store: ContentStore,
  workdir: Workdir,
  previousRef?: string,
  options: SnapshotOptions = {},
): Promise<Snapshot> {
  const scan: Scan = {
    store,
    maxFileBytes: options.maxFileBytes ?? processMaxFileBytes,
    racyFrom: Date.now() - RACY_WINDOW_MS,
    signal: options.signal,
    files: 0,
    reads: new ReadSlots(READ_CONCURRENCY),
    previousNodes: new Map(),
  };
  const rules = await IgnoreRules.forWorkdir(workdir);
  const root = workdir.directory('');
  if (!root) throw new Error(`workdir ${workdir.path} is not a directory`);
  let ref: string | undefined;
  try {
    ref = await scanDirectory(scan, root, previousRef, rules);
  } finally {
    root.close();
  }
  ref ??= await putJson(store, treeNodeOf([]));
  const changes = previousRef === undefined ? [] : await compareSnapshots(store, previousRef, ref, options.signal);
  return { ref, files: scan.files, changes };
}

export function isAgentTemporary(name: string): boolean {
  return AGENT_TEMPORARY_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/**
 * The node of one directory, or undefined when nothing in it is recorded (like git, a snapshot
 * holds no empty directories). `previousRef` is this directory's node in the previous snapshot.
 *
 * Listing and lstat are synchronous on purpose: they answer from the kernel's caches in
 * microseconds, far less than a round trip through libuv's thread pool and a promise, and they
 * are the calls made for every directory and every file. Subdirectories are walked one at a time
 * (so only the directories on the current path are open), their previous nodes loaded ahead;
 * reading files, the slow part and only for files that changed, goes on several at a time.
 */
async function scanDirectory(
  scan: Scan,
  directory: DirectoryHandle,
  previousRef: string | undefined,
  inherited: IgnoreRules,
): Promise<string | undefined> {
  scan.signal?.throwIfAborted();
  const dirents = directory.entries();
  const previous = previousRef === undefined ? new Map<string, TreeEntry>() : await previousNode(scan, previousRef);
  for (const entry of previous.values()) if (entry.t === 'd') void previousNode(scan, entry.h).catch(() => {});
  const rules = dirents.some((dirent) => dirent.name === '.gitignore' && dirent.isFile())
    ? await inherited.withGitignoreOf(directory)
    : inherited;
  dirents.sort((a, b) => byName(a.name, b.name));

  const names: string[] = [];
  const pending: Pending[] = [];
  for (const dirent of dirents) {
    const name = dirent.name;
    if (name === '.git' || isAgentTemporary(name)) continue;
    const path = directory.pathOf(name);
    const before = previous.get(name);
    if (dirent.isDirectory()) {
      if (rules.ignores(path, true)) continue;
      names.push(name);
      // Awaited here: one directory at a time, so the descriptors open are those of one path.
      pending.push(await directoryEntry(scan, directory, name, before, rules));
    } else if (!rules.ignores(path, false)) {
      names.push(name);
      pending.push(await leafEntry(scan, directory, dirent, before));
    }
  }
  const settled = await Promise.all(
    pending.map((entry) => (entry !== undefined && 'reading' in entry ? entry.reading : entry)),
  );
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

function previousNode(scan: Scan, ref: string): Promise<Map<string, TreeEntry>> {
  let node = scan.previousNodes.get(ref);
  if (!node) scan.previousNodes.set(ref, (node = loadTree(scan.store, ref)));
  return node;
}

/** An entry known now, or a file being read (wrapped: a promise returned from an async function would be awaited with it). */
type Pending = TreeEntry | undefined | { reading: Promise<TreeEntry | undefined> };

/** A subdirectory's entry; one swapped for something else since it was listed is recorded as what it is now. */
async function directoryEntry(
  scan: Scan,
  parent: DirectoryHandle,
  name: string,
  before: TreeEntry | undefined,
  rules: IgnoreRules,
): Promise<Pending> {
  const child = parent.subdirectory(name);
  if (!child) {
    const stats = parent.lstat(name);
    return stats && !stats.isDirectory() ? leafOf(scan, parent, name, stats, before) : undefined;
  }
  let ref: string | undefined;
  try {
    ref = await scanDirectory(scan, child, before?.t === 'd' ? before.h : undefined, rules);
  } finally {
    child.close();
  }
  if (ref === undefined) return undefined;
  return before?.t === 'd' && before.h === ref ? before : { t: 'd', h: ref };
}

/** A file, link or special file: the previous entry itself when it is known unchanged. (Turned into a directory since the listing: the next snapshot has it.) */
async function leafEntry(
  scan: Scan,
  directory: DirectoryHandle,
  dirent: Dirent,
  before: TreeEntry | undefined,
): Promise<Pending> {
  const stats = directory.lstat(dirent.name);
  if (stats === undefined || stats.isDirectory()) return undefined;
  return leafOf(scan, directory, dirent.name, stats, before);
}

async function leafOf(
  scan: Scan,
  directory: DirectoryHandle,
  name: string,
  stats: Stats,
  before: TreeEntry | undefined,
): Promise<Pending> {
  if (stats.isSymbolicLink()) return linkEntry(directory, name, before);
  if (!stats.isFile()) return specialEntry(stats, before);
  const executable = (stats.mode & 0o100) !== 0;
  if (
    before?.t === 'f' &&
    before.mt !== 0 &&
    before.mt === stats.mtimeMs &&
    before.s === stats.size &&
    before.i === stats.ino &&
    Boolean(before.x) === executable
  ) {
    return before;
  }
  if (stats.size > scan.maxFileBytes) return bigEntry(scan, stats);
  // A slot first, then the file is opened: at most READ_CONCURRENCY files are open at once.
  await scan.reads.acquire();
  const opened = directory.openFile(name);
  if (!opened) {
    scan.reads.release();
    return undefined;
  }
  return { reading: readFileEntry(scan, opened.fd, opened.stats).finally(() => scan.reads.release()) };
}

function linkEntry(directory: DirectoryHandle, name: string, before: TreeEntry | undefined): LinkEntry | undefined {
  const to = directory.readlink(name);
  if (to === undefined) return undefined;
  return before?.t === 'l' && before.to === to ? before : { t: 'l', to };
}

function specialEntry(stats: Stats, before: TreeEntry | undefined): SpecialEntry {
  const k = stats.isFIFO() ? 'fifo' : stats.isSocket() ? 'socket' : 'device';
  return before?.t === 's' && before.k === k ? before : { t: 's', k };
}

/** Over the size limit: recorded by metadata, never read. */
function bigEntry(scan: Scan, stats: Stats): FileEntry {
  const racy = stats.mtimeMs >= scan.racyFrom;
  return {
    t: 'f',
    h: metadataHash(stats),
    s: stats.size,
    ...((stats.mode & 0o100) !== 0 && { x: true as const }),
    mt: racy ? 0 : stats.mtimeMs,
    i: stats.ino,
    big: true,
  };
}

async function readFileEntry(scan: Scan, fd: number, info: Stats): Promise<FileEntry | undefined> {
  scan.signal?.throwIfAborted();
  const content = await readOpenedFile(fd, info, scan.signal);
  // Only new content is written: the store skips objects it already holds.
  const hash = await scan.store.putBytes(content.data);
  // Read while it was being written (size differs from its stat), or racy: read it again next time.
  const racy = content.size !== info.size || info.mtimeMs >= scan.racyFrom;
  return {
    t: 'f',
    h: hash,
    s: content.size,
    ...((info.mode & 0o100) !== 0 && { x: true as const }),
    mt: racy ? 0 : info.mtimeMs,
    i: info.ino,
  };
}

/** Slots for reads: `acquire` waits for one, `release` hands it to the next waiter. */
class ReadSlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
