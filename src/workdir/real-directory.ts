/**
 * The real path of a directory someone outside the session names: a session's `workdir` as its
 * input gives it, the worker's own directories (AGENT_INSTRUCTIONS_DIR, the store, the roots).
 * Resolved once, by the text of the path, before anything of the session runs; from then on the
 * workdir is only ever opened from this real path with no link allowed on the way (workdir.ts).
 */
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';

/** The real path, or why there is none: `missing`, or `not a directory`. */
export async function realDirectory(
  path: string,
): Promise<{ path: string } | { problem: 'does not exist' | 'is not a directory' }> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return { problem: 'does not exist' };
  if (!info.isDirectory()) return { problem: 'is not a directory' };
  return { path: await realpath(path) };
}

/** A directory's real path, or the path itself (absolute) while it does not exist (a content store not yet written). */
export async function realOrSame(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}
