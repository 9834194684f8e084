/**
 * How Glob and Grep find files, confined to the workdir as strictly as Read and Write: a pattern
 * may not start outside it (absolute paths elsewhere, `~`, `..` segments, also after brace
 * expansion: `{..,x}/**`), and every entry found must really lie inside it (a symlink in the
 * repository to `/etc/passwd` is skipped) and be a regular file (FIFOs, devices and sockets
 * would block or leak).
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import braces from 'braces';
import fastGlob from 'fast-glob';
import { isInside } from './paths';
import { ToolError } from './tool';

/**
 * Absolute paths of files only, dotfiles included, symlinks not followed into directories, and
 * node_modules and .git skipped (never worth showing; it keeps large repositories fast).
 */
const FILE_SEARCH: fastGlob.Options = {
  absolute: true,
  dot: true,
  onlyFiles: true,
  followSymbolicLinks: false,
  ignore: ['**/node_modules/**', '**/.git/**'],
};

/** Brace expansions of one pattern beyond this are refused (`{a,b}{c,d}…` grows exponentially). */
const MAX_EXPANSIONS = 1_000;
const MAX_BRACE_GROUPS = 10;

/**
 * A pattern made relative to `root`, refused when it could reach outside the workdir. An absolute
 * pattern inside the workdir is fine (the model often repeats the workdir's path).
 */
export function confinedPattern(pattern: string, { workdir, root, field }: { workdir: string; root: string; field: string }): string {
  if (pattern.includes('\0')) throw new ToolError(`${field} contains a NUL byte.`);
  let relativePattern = pattern;
  if (isAbsolute(pattern)) {
    const prefix = [root, workdir].find((directory) => pattern === directory || pattern.startsWith(`${directory}/`));
    if (!prefix) throw outside(field, pattern, workdir);
    relativePattern = join(relative(root, prefix) || '.', pattern.slice(prefix.length + 1) || '.');
  }
  if ((relativePattern.match(/\{/g)?.length ?? 0) > MAX_BRACE_GROUPS) throw new ToolError(`${field} ${pattern} has too many brace groups; write it more narrowly.`);
  let expansions: string[];
  try {
    expansions = braces(relativePattern, { expand: true, rangeLimit: MAX_EXPANSIONS });
  } catch {
    throw new ToolError(`${field} ${pattern} expands to too many patterns; write it more narrowly.`);
  }
  if (expansions.length > MAX_EXPANSIONS) throw new ToolError(`${field} ${pattern} expands to too many patterns; write it more narrowly.`);
  const unescape = (segment: string) => segment.replace(/\\(.)/g, '$1');
  const climbsInBraces = relativePattern.split(/[/{},]/).map(unescape).includes('..');
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
    const literal = expanded.split('/').slice(0, lastClimb + 1).every((segment) => !/[*?[\]{}()!+@]/.test(segment));
    if (!literal || !isInside(workdir, join(root, ...segments.slice(0, lastClimb + 1)))) throw outside(field, pattern, workdir);
  }
  return relativePattern;
}

function outside(field: string, pattern: string, workdir: string): ToolError {
  return new ToolError(`${field} ${pattern} reaches outside the working directory ${workdir}. Only files inside it can be searched.`);
}

export interface FoundFile {
  path: string;
  mtimeMs: number;
  size: number;
}

/**
 * The regular files matching a confined pattern under `root`, each checked to lie really inside
 * the workdir. Stops early when `signal` aborts.
 */
export async function findFiles(pattern: string, { workdir, root, signal }: { workdir: string; root: string; signal: AbortSignal }): Promise<FoundFile[]> {
  const entries = await fastGlob(pattern, { ...FILE_SEARCH, cwd: root });
  const found: FoundFile[] = [];
  for (const entry of entries) {
    if (signal.aborted) break;
    const real = await realpath(entry).catch(() => undefined);
    if (!real || !isInside(workdir, real)) continue;
    const info = await stat(real).catch(() => undefined);
    if (!info?.isFile()) continue;
    found.push({ path: entry, mtimeMs: info.mtimeMs, size: info.size });
  }
  return found;
}
