/**
 * Which directories a session may work in. A workdir is everything its commands can change and
 * its tools can read, so some never qualify: the root, system directories, and anything that is,
 * lies inside or holds the content store (every session's conversations) or the git directories
 * of `repo` sessions (their commits and pushes run with the worker's privileges). With
 * `AGENT_WORKSPACE_ROOTS`, a workdir must also lie inside one of the roots.
 */
import { isInside } from '../tools/paths';

/** Directories that are never a workdir themselves. */
const SYSTEM = [
  '/',
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/home',
  '/lib',
  '/lib32',
  '/lib64',
  '/media',
  '/mnt',
  '/opt',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/srv',
  '/sys',
  '/tmp',
  '/usr',
  '/usr/local',
  '/var',
];
/** …nor is anything inside these. */
const NEVER_INSIDE = ['/boot', '/dev', '/etc', '/proc', '/run', '/sys'];

/** Why the (real) workdir is refused, or undefined when it may be used. */
export function workdirProblem(
  workdir: string,
  {
    contentDir,
    roots,
    privateDirs = [],
  }: { contentDir?: string; roots: readonly string[]; privateDirs?: readonly string[] },
): string | undefined {
  if (SYSTEM.includes(workdir)) return `${workdir} is a system directory`;
  const system = NEVER_INSIDE.find((directory) => isInside(directory, workdir));
  if (system) return `${workdir} lies inside ${system}, a system directory`;
  if (contentDir && isInside(contentDir, workdir))
    return `${workdir} lies inside the content store (${contentDir}), which holds every session's conversations`;
  if (contentDir && isInside(workdir, contentDir))
    return `${workdir} holds the content store (${contentDir}), which holds every session's conversations`;
  for (const directory of privateDirs) {
    if (isInside(directory, workdir) || isInside(workdir, directory))
      return `${workdir} ${isInside(directory, workdir) ? 'lies inside' : 'holds'} ${directory}, where the worker keeps the git directories of repo sessions`;
  }
  if (roots.length > 0 && !roots.some((root) => isInside(root, workdir)))
    return `${workdir} is not inside the workspace roots (AGENT_WORKSPACE_ROOTS: ${roots.join(', ')})`;
  return undefined;
}
