import { createHash } from 'node:crypto';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { Workdir } from '../../workdir/workdir';
import { WorkdirRefusal } from '../../workdir/workdir-refusal';
import { ToolError } from './tool';

/**
 * The real path a path the model gave names (absolute, or relative to the workdir), links inside
 * the workdir followed, whether or not it exists; a ToolError when it is outside. Resolved
 * beneath the workdir's descriptor (src/workdir/), never by the path's text.
 */
export function resolveInWorkdir(workdir: string, requested: string): string {
  try {
    const opened = Workdir.open(workdir);
    try {
      return opened.realPath(requested);
    } finally {
      opened.close();
    }
  } catch (error) {
    throw unresolvable(requested, error);
  }
}

/** Runs `use` on the session's workdir; refusals (outside, not a regular file…) become ToolErrors. */
export async function inWorkdir<T>(workdir: string, use: (opened: Workdir) => Promise<T> | T): Promise<T> {
  try {
    return await Workdir.using(workdir, use);
  } catch (error) {
    throw asToolError(error);
  }
}

export function asToolError(error: unknown): unknown {
  if (error instanceof WorkdirRefusal) return new ToolError(error.message);
  // A system error names the descriptor path it failed on (`open '/proc/self/fd/23/a'`): the
  // model needs the name, not the worker's descriptor numbers.
  const errno = error as NodeJS.ErrnoException;
  if (
    typeof errno?.code === 'string' &&
    typeof errno.message === 'string' &&
    errno.message.includes('/proc/self/fd/')
  ) {
    errno.message = errno.message.replace(/\/proc\/self\/fd\/\d+\/?/g, '');
  }
  return error;
}

/**
 * Why a path cannot be resolved, as the model can act on it: a refusal, or what the file system
 * said (a part of it is a file, a link loop). Planning a call must not fail its model call over
 * a path the session controls (a racer can change it at any moment): the tool reports it instead.
 */
function unresolvable(requested: string, error: unknown): unknown {
  if (error instanceof WorkdirRefusal) return new ToolError(error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (code && ['ENOENT', 'ENOTDIR', 'ELOOP', 'EINVAL', 'EACCES', 'EPERM', 'ENAMETOOLONG'].includes(code))
    return new ToolError(`Path ${requested} cannot be resolved (${code}).`);
  return error;
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
