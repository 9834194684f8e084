/**
 * One working-tree file for a snapshot: read through the descriptor its directory opened for it
 * (a regular file: FIFOs, sockets and devices are never opened, see src/workdir/), in chunks that
 * honour cancellation. A file over the size limit is not read at all: its entry is its metadata
 * (size, mtime, inode), so a 60 GB sparse file costs a stat, not minutes of hashing.
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { closeQuietly } from '../workdir/proc-fd';
import { streamChunks } from '../workdir/read-regular';

export interface FileContent {
  /** `sha256:<hex>` of everything read, the same reference the content store gives those bytes. */
  hash: string;
  data: Buffer;
  size: number;
}

/** The bytes of an opened regular file and their hash. Closes `fd`. */
export async function readOpenedFile(
  fd: number,
  stats: Pick<Stats, 'size'>,
  signal?: AbortSignal,
): Promise<FileContent> {
  try {
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    const size = await streamChunks(
      fd,
      (bytes) => {
        hash.update(bytes);
        chunks.push(bytes);
      },
      { signal, sizeHint: stats.size },
    );
    return { hash: `sha256:${hash.digest('hex')}`, data: Buffer.concat(chunks, size), size };
  } finally {
    closeQuietly(fd);
  }
}

/**
 * What stands for the content of a file over the size limit: its size, mtime and inode. Any
 * change to it changes one of them (a change of the same size within the same mtime tick is
 * caught by the racy-mtime guard: such entries are recorded racy, and looked at again).
 */
export function metadataHash(stats: Pick<Stats, 'size' | 'mtimeMs' | 'ino'>): string {
  return `meta:${stats.size}:${stats.mtimeMs}:${stats.ino}`;
}
