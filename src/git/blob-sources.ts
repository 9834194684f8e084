/**
 * Where a committed file's bytes come from. A snapshot's file is in the content store, by hash.
 * A file over the snapshot size limit (`big`) is not: its bytes are read from the workdir, through
 * the Workdir (every component resolved beneath the workdir's descriptor, no link followed, a
 * regular file only), and only when the file is still what the snapshot recorded (its size,
 * mtime and inode; for entries of older snapshots, the hash of its content, checked as it is
 * streamed). A file changed since is not committed: the commit would not be what the snapshot
 * and the result's `filesChanged` say.
 */
import { createHash } from 'node:crypto';
import { read, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import type { Workdir } from '../workdir/workdir';
import { closeQuietly, statOf } from '../workdir/proc-fd';
import type { ContentStore } from '../store/content-store';
import { metadataHash } from '../snapshots/file-content';
import type { FileEntry, LeafEntry } from '../snapshots/tree-node';
import type { BlobContent, BlobWrite } from './fast-import';

const readAsync = promisify(read);
const CHUNK_BYTES = 1024 * 1024;
const CHANGED = "over the snapshot size limit, and changed since the session's last snapshot";

/** The write of a file or symlink of a snapshot at `path` (special files are never written). */
export function blobWrite(
  store: ContentStore,
  workdir: () => Workdir,
  path: string,
  entry: Exclude<LeafEntry, { t: 's' }>,
): BlobWrite {
  if (entry.t === 'l') {
    const target = Buffer.from(entry.to, 'utf8');
    return { path, mode: '120000', key: `link:${entry.to}`, open: async () => whole(target) };
  }
  const mode = entry.x ? '100755' : '100644';
  if (entry.big) return { path, mode, key: `big:${path}`, open: async () => bigFile(workdir, path, entry) };
  return { path, mode, key: entry.h, open: async () => whole(await store.getBytes(entry.h)) };
}

function whole(bytes: Buffer): BlobContent {
  return { size: bytes.length, chunks: once(bytes), problem: () => undefined };
}

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

/** A big file's bytes from the workdir, when it is still the file the snapshot recorded. */
function bigFile(workdir: () => Workdir, path: string, entry: FileEntry): BlobContent | { unavailable: string } {
  let opened: ReturnType<Workdir['openFile']>;
  try {
    opened = workdir().openFile(path, { followLast: false, followLinks: false });
  } catch {
    opened = undefined;
  }
  if (!opened) return { unavailable: 'over the snapshot size limit, and no longer a regular file in the workdir' };
  const { fd, stats } = opened;
  const recordedByMetadata = entry.h.startsWith('meta:');
  if (recordedByMetadata ? metadataHash(stats) !== entry.h : stats.size !== entry.s) {
    closeQuietly(fd);
    return { unavailable: CHANGED };
  }
  const hash = recordedByMetadata ? undefined : createHash('sha256');
  let problem: string | undefined;
  const chunks = exactly(
    fd,
    stats,
    (chunk) => hash?.update(chunk),
    (reason) => (problem ??= reason),
  );
  let open = true;
  return {
    size: stats.size,
    chunks,
    close: () => {
      if (open) closeQuietly(fd);
      open = false;
    },
    problem: () => problem ?? (hash && `sha256:${hash.digest('hex')}` !== entry.h ? CHANGED : undefined),
  };
}

/**
 * Exactly `stats.size` bytes of the file, whatever happens to it meanwhile: a file that shrinks
 * is padded (and reported), one that grows is cut at its recorded size.
 */
async function* exactly(
  fd: number,
  stats: Stats,
  seen: (chunk: Buffer) => void,
  report: (reason: string) => void,
): AsyncGenerator<Buffer> {
  let position = 0;
  while (position < stats.size) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, stats.size - position));
    const { bytesRead } = await readAsync(fd, chunk, 0, chunk.length, position);
    if (bytesRead === 0) {
      report('over the snapshot size limit, and it shrank while it was committed');
      chunk.fill(0);
      yield chunk;
      position += chunk.length;
      continue;
    }
    const bytes = chunk.subarray(0, bytesRead);
    seen(bytes);
    yield bytes;
    position += bytesRead;
  }
  // Written to while it was read: the bytes may mix two versions.
  if (metadataHash(statOf(fd)) !== metadataHash(stats)) report(CHANGED);
}
