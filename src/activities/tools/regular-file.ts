/**
 * Reading a file the model named without letting it stall the worker: opened non-blocking (a
 * FIFO would otherwise block a thread of Node's small file-I/O pool forever), refused unless it
 * is a regular file, its size checked before anything is loaded, binaries detected on the
 * first 8 KB.
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { ToolError } from './tool';

/** Bytes looked at to tell a binary file from text (a NUL byte among them). */
export const BINARY_PROBE_BYTES = 8192;

/** Opens a regular file for reading; anything else (FIFO, device, socket, directory) is refused. */
export async function openRegularFile(path: string, shown: string): Promise<{ handle: FileHandle; size: number }> {
  // O_NOFOLLOW: the path was resolved already; a symlink swapped in since is not followed.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new ToolError(`${shown} is a directory. Use Glob or Bash (ls) to list it.`);
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file (${kindOf(info)}), so it cannot be read.`);
    return { handle, size: info.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The whole content of a regular file of at most `maxBytes`; `text` refuses binaries after
 * looking at their first 8 KB only (a 700 MB binary is never loaded).
 */
export async function readRegularFile(path: string, shown: string, { maxBytes, text, tooLarge }: { maxBytes: number; text: boolean; tooLarge: (bytes: number) => string }): Promise<Buffer> {
  const { handle, size } = await openRegularFile(path, shown);
  try {
    if (text) {
      const probe = Buffer.alloc(Math.min(size, BINARY_PROBE_BYTES));
      const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
      if (probe.subarray(0, bytesRead).includes(0)) throw new ToolError(`${shown} looks like a binary file (${formatBytes(size)}) and cannot be read as text.`);
    }
    if (size > maxBytes) throw new ToolError(tooLarge(size));
    // One byte more than its size: a file that grows while it is read is caught, not loaded on and on.
    const buffer = Buffer.alloc(size + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) throw new ToolError(`${shown} is growing while it is read; try again when it is complete.`);
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)} KB`;
  return `${bytes} bytes`;
}

function kindOf(info: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}
