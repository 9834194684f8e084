/**
 * Reading one working-tree file for a snapshot: its hash always, its bytes only when it is small
 * enough to store. Opened non-blocking and without following links, so a FIFO or symlink swapped
 * in since the directory was listed can neither stall the scan nor lead it outside the workdir.
 */
import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { createHash } from 'node:crypto';

/** Read size for files too big to keep: their hash is computed chunk by chunk. */
const STREAM_CHUNK_BYTES = 1024 * 1024;

export interface FileContent {
  /** `sha256:<hex>` of everything read, the same reference the content store gives those bytes. */
  hash: string;
  /** The bytes, or undefined when there are more than `maxBytes` of them. */
  data?: Buffer;
  size: number;
  /** The opened file's own stat (size, mtime and inode as they were when it was read). */
  info: Stats;
}

/** Undefined when the path is gone or is no longer a regular file. */
export async function readFileContent(path: string, maxBytes: number): Promise<FileContent | undefined> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
    if (isGone(error)) return undefined;
    throw error;
  });
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let keep = info.size <= maxBytes;
    // One byte more than the size: a file that grew since its stat is still read to the end.
    const chunkBytes = Math.min(info.size + 1, STREAM_CHUNK_BYTES);
    let scratch: Buffer | undefined;
    let size = 0;
    for (;;) {
      const chunk = keep ? Buffer.allocUnsafe(chunkBytes) : (scratch ??= Buffer.allocUnsafe(STREAM_CHUNK_BYTES));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, size);
      if (bytesRead === 0) break;
      const bytes = chunk.subarray(0, bytesRead);
      hash.update(bytes);
      size += bytesRead;
      if (keep && size > maxBytes) {
        keep = false;
        chunks.length = 0;
      } else if (keep) {
        chunks.push(bytes);
      }
    }
    return { hash: `sha256:${hash.digest('hex')}`, data: keep ? Buffer.concat(chunks, size) : undefined, size, info };
  } finally {
    await handle.close();
  }
}

/**
 * Errors that mean "nothing to record here": the file went away, turned into a symlink (ELOOP
 * from O_NOFOLLOW), or cannot be read at all. A snapshot that failed on one unreadable file
 * would fail the same way at every retry.
 */
export function isGone(error: NodeJS.ErrnoException): boolean {
  return ['ENOENT', 'ENOTDIR', 'ELOOP', 'EACCES', 'EPERM', 'ENXIO'].includes(error.code ?? '');
}
