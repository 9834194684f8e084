/**
 * How Glob and Grep find files, confined to the workdir as strictly as Read and Write: a pattern
 * may not start outside it (absolute paths elsewhere, `~`, `..` segments, also after brace
 * expansion: `{..,x}/**`), and the walk itself goes through directory descriptors beneath the
 * workdir (src/workdir/), never into a symlink, so a directory swapped for a link to elsewhere
 * while it runs is skipped, not followed. Only regular files are found (FIFOs, devices and
 * sockets would block or leak), dotfiles included, node_modules and .git skipped (never worth
 * showing; it keeps large repositories fast).
 */
import { isAbsolute, join, posix, relative } from 'node:path';
import braces from 'braces';
import picomatch from 'picomatch';
import type { DirectoryHandle } from '../../workdir/directory-handle';
import type { Workdir } from '../../workdir/workdir';
import { isInside } from './paths';
import { ToolError } from './tool';

/** Directories never searched. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);

/** Brace expansions of one pattern beyond this are refused (`{a,b}{c,d}…` grows exponentially). */
const MAX_EXPANSIONS = 1_000;
const MAX_BRACE_GROUPS = 10;

/**
 * A pattern made relative to `root`, refused when it could reach outside the workdir. An absolute
 * pattern inside the workdir is fine (the model often repeats the workdir's path).
 */
export function confinedPattern(
  pattern: string,
  { workdir, root, field }: { workdir: string; root: string; field: string },
): string {
  if (pattern.includes('\0')) throw new ToolError(`${field} contains a NUL byte.`);
  let relativePattern = pattern;
  if (isAbsolute(pattern)) {
    const prefix = [root, workdir].find((directory) => pattern === directory || pattern.startsWith(`${directory}/`));
    if (!prefix) throw outside(field, pattern, workdir);
    relativePattern = join(relative(root, prefix) || '.', pattern.slice(prefix.length + 1) || '.');
  }
  if ((relativePattern.match(/\{/g)?.length ?? 0) > MAX_BRACE_GROUPS)
    throw new ToolError(`${field} ${pattern} has too many brace groups; write it more narrowly.`);
  let expansions: string[];
  try {
    expansions = braces(relativePattern, { expand: true, rangeLimit: MAX_EXPANSIONS });
  } catch {
    throw new ToolError(`${field} ${pattern} expands to too many patterns; write it more narrowly.`);
  }
  if (expansions.length > MAX_EXPANSIONS)
    throw new ToolError(`${field} ${pattern} expands to too many patterns; write it more narrowly.`);
  const unescape = (segment: string) => segment.replace(/\\(.)/g, '$1');
  const climbsInBraces = relativePattern
    .split(/[/{},]/)
    .map(unescape)
    .includes('..');
  const climbsInExpansions = expansions.some((expanded) => expanded.split('/').map(unescape).includes('..'));
  // `{..,src}` is not expanded here, nor by the glob library; a `..` left in braces is refused all the same.
  if (climbsInBraces && !climbsInExpansions) throw outside(field, pattern, workdir);
  for (const expanded of expansions.length ? expansions : [relativePattern]) {
    if (expanded.startsWith('~') || isAbsolute(expanded)) throw outside(field, pattern, workdir);
    // Directory reads never return `..`, so only a literal segment (escapes removed) climbs; it
    // must follow literal segments only, so where it leads is known and can be checked.
    const segments = expanded.split('/').map(unescape);
    const lastClimb = segments.lastIndexOf('..');
    if (lastClimb < 0) continue;
    const literal = expanded
      .split('/')
      .slice(0, lastClimb + 1)
      .every((segment) => !/[*?[\]{}()!+@]/.test(segment));
    if (!literal || !isInside(workdir, join(root, ...segments.slice(0, lastClimb + 1))))
      throw outside(field, pattern, workdir);
  }
  return relativePattern;
}

function outside(field: string, pattern: string, workdir: string): ToolError {
  return new ToolError(
    `${field} ${pattern} reaches outside the working directory ${workdir}. Only files inside it can be searched.`,
  );
}

export interface FoundFile {
  /** Absolute (real) path. */
  path: string;
  mtimeMs: number;
  size: number;
}

export interface FileSearch {
  /** The directory searched, relative to the workdir ('' for the workdir), canonical. */
  root: string;
  signal: AbortSignal;
}

/**
 * Visits the regular files matching a confined pattern under `search.root`, in the order of
 * their paths (code units, as a sort of the whole list would give), each with the directory that
 * holds it (open while the visit runs). Stops early when the signal aborts or `visit` says so.
 */
export async function visitFiles(
  workdir: Workdir,
  pattern: string,
  search: FileSearch,
  visit: (directory: DirectoryHandle, name: string, path: string) => Promise<boolean | void> | boolean | void,
): Promise<void> {
  const scanned = picomatch.scan(pattern);
  const start = posix.normalize(posix.join(search.root || '.', scanned.base || '.'));
  if (!scanned.isGlob) {
    const directory = workdir.directory(posix.dirname(start));
    if (!directory) return;
    try {
      if (directory.lstat(posix.basename(start))?.isFile())
        await visit(directory, posix.basename(start), workdir.absolute(directory.pathOf(posix.basename(start))));
    } finally {
      directory.close();
    }
    return;
  }
  const matches = picomatch(scanned.glob, { dot: true });
  const maxDepth = scanned.glob.split('/').some((part) => part.includes('**'))
    ? Infinity
    : scanned.glob.split('/').length;
  const top = workdir.directory(start === '.' ? '' : start);
  if (!top) return;
  const walk = async (directory: DirectoryHandle, below: string, depth: number): Promise<boolean> => {
    // Sorted as whole paths would be: a directory's entries come where `name/` sorts.
    const entries = directory
      .entries()
      .sort((a, b) => byPath(a.name + (a.isDirectory() ? '/' : ''), b.name + (b.isDirectory() ? '/' : '')));
    for (const entry of entries) {
      if (search.signal.aborted) return false;
      const relativeToStart = below === '' ? entry.name : `${below}/${entry.name}`;
      if (entry.isDirectory()) {
        if (depth >= maxDepth || SKIPPED_DIRECTORIES.has(entry.name)) continue;
        const child = directory.subdirectory(entry.name);
        if (!child) continue;
        try {
          if (!(await walk(child, relativeToStart, depth + 1))) return false;
        } finally {
          child.close();
        }
      } else if (entry.isFile() && matches(relativeToStart)) {
        if ((await visit(directory, entry.name, workdir.absolute(directory.pathOf(entry.name)))) === false)
          return false;
      }
    }
    return true;
  };
  try {
    await walk(top, '', 1);
  } finally {
    top.close();
  }
}

/** The regular files matching a confined pattern under the search root, with their size and mtime. */
export async function findFiles(workdir: Workdir, pattern: string, search: FileSearch): Promise<FoundFile[]> {
  const found: FoundFile[] = [];
  await visitFiles(workdir, pattern, search, (directory, name, path) => {
    const stats = directory.lstat(name);
    if (stats?.isFile()) found.push({ path, mtimeMs: stats.mtimeMs, size: stats.size });
  });
  return found;
}

function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
