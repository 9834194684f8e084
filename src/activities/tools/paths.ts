import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from './tool';

/** Linux's limit on a path's length. */
const PATH_MAX = 4096;

/**
 * Resolves a path the model gave (absolute, or relative to the workdir) and refuses anything
 * that lands outside the workdir, including through symlinks: the real path of the deepest
 * existing ancestor must lie inside the real workdir.
 */
export function resolveInWorkdir(workdir: string, requested: string): string {
  // Node throws on these before any file is touched; as tool errors the model can fix them.
  if (requested.includes('\0')) throw new ToolError('The path contains a NUL byte; paths cannot contain one.');
  if (requested.length > PATH_MAX) throw new ToolError(`The path is ${requested.length} characters long; paths are at most ${PATH_MAX}.`);
  const realWorkdir = realpathSync(workdir);
  const absolute = resolve(realWorkdir, requested);
  let existing = absolute;
  const missingTail: string[] = [];
  for (;;) {
    try {
      existing = realpathSync(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      missingTail.unshift(basename(existing));
      existing = parent;
    }
  }
  const real = missingTail.length ? join(existing, ...missingTail) : existing;
  if (!isInside(realWorkdir, real)) {
    throw new ToolError(
      `Path ${requested} resolves to ${real}, which is outside the working directory ${realWorkdir}. ` +
        'Only files inside the working directory can be accessed.',
    );
  }
  return real;
}

export function isInside(root: string, candidate: string): boolean {
  const fromRoot = relative(root, candidate);
  return fromRoot === '' || (!fromRoot.startsWith(`..${sep}`) && fromRoot !== '..' && !isAbsolute(fromRoot));
}

/** Path as shown to people (UI summaries): relative to the workdir when inside it. */
export function displayPath(workdir: string, path: string): string {
  const absolute = resolve(workdir, path);
  return isInside(workdir, absolute) ? relative(workdir, absolute) || '.' : path;
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
