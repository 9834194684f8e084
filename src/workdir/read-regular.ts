/**
 * Reading a workdir file the worker never opens unless it is a regular file: it is named with
 * `O_PATH` first (a FIFO, socket or device is not opened by that), checked with `fstat`, and only
 * then opened for reading through its own descriptor. Sizes are checked before anything is
 * loaded, reads go in chunks that honour a cancellation signal, and a file that grows while it
 * is read is caught rather than read on and on.
 */
import { read, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import { closeQuietly, openForReading, statOf } from './proc-fd';
import { kindOf, WorkdirRefusal } from './workdir-refusal';

const readAsync = promisify(read);

/** Read size of one chunk: a signal is checked between chunks. */
const CHUNK_BYTES = 1024 * 1024;

/** Bytes looked at to tell a binary file from text (a NUL byte among them). */
export const BINARY_PROBE_BYTES = 8192;

/** A read descriptor of the regular file an `O_PATH` descriptor names, or a refusal saying what it is instead. */
export function openRegular(pathFd: number, shown: string): { fd: number; stats: Stats } {
  const named = statOf(pathFd);
  if (named.isDirectory())
    throw new WorkdirRefusal(`${shown} is a directory. Use Glob or Bash (ls) to list it.`, 'a directory');
  if (!named.isFile())
    throw new WorkdirRefusal(
      `${shown} is not a regular file (${kindOf(named)}), so it cannot be read.`,
      `not a regular file (${kindOf(named)})`,
    );
  const fd = openForReading(pathFd);
  return { fd, stats: statOf(fd) };
}

export interface ReadLimits {
  maxBytes: number;
  /** The refusal's text for a file over `maxBytes`. */
  tooLarge: (bytes: number) => string;
  /** Refuse binaries (a NUL byte in the first 8 KB), with this text. */
  binary?: (bytes: number) => string;
  signal?: AbortSignal;
}

/** All of a regular file, within the limits. Closes `fd`. */
export async function readWithin(fd: number, stats: Stats, shown: string, limits: ReadLimits): Promise<Buffer> {
  try {
    if (limits.binary) {
      const probe = Buffer.alloc(Math.min(stats.size, BINARY_PROBE_BYTES));
      const { bytesRead } = await readAsync(fd, probe, 0, probe.length, 0);
      if (probe.subarray(0, bytesRead).includes(0))
        throw new WorkdirRefusal(limits.binary(stats.size), 'a binary file');
    }
    if (stats.size > limits.maxBytes)
      throw new WorkdirRefusal(limits.tooLarge(stats.size), `too large (${formatBytes(stats.size)})`);
    // One byte more than its size: a file that grows while it is read is caught, not loaded on and on.
    const buffer = Buffer.alloc(stats.size + 1);
    let filled = 0;
    for (;;) {
      limits.signal?.throwIfAborted();
      const { bytesRead } = await readAsync(fd, buffer, filled, Math.min(CHUNK_BYTES, buffer.length - filled), filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length)
        throw new WorkdirRefusal(`${shown} is growing while it is read; try again when it is complete.`);
    }
    return buffer.subarray(0, filled);
  } finally {
    closeQuietly(fd);
  }
}

/**
 * Reads chunk by chunk to the end, giving each chunk (a buffer of its own) to `onChunk`. Does not
 * close `fd`. `sizeHint`: the file's size, so a small file costs one small buffer.
 */
export async function streamChunks(
  fd: number,
  onChunk: (bytes: Buffer) => void,
  { signal, sizeHint }: { signal?: AbortSignal; sizeHint?: number } = {},
): Promise<number> {
  const chunkBytes = sizeHint === undefined ? CHUNK_BYTES : Math.min(sizeHint + 1, CHUNK_BYTES);
  let position = 0;
  for (;;) {
    signal?.throwIfAborted();
    const chunk = Buffer.allocUnsafe(chunkBytes);
    const { bytesRead } = await readAsync(fd, chunk, 0, chunk.length, position);
    if (bytesRead === 0) return position;
    onChunk(chunk.subarray(0, bytesRead));
    position += bytesRead;
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)} KB`;
  return `${bytes} bytes`;
}
