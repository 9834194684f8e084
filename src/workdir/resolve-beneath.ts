/**
 * Resolving a path inside a workdir the way `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`
 * does, with directory descriptors all the way down: each component is opened `O_NOFOLLOW`
 * relative to the descriptor of the directory before it, so the kernel never follows a symlink
 * the session planted, and a directory swapped for a symlink after we looked at it is refused
 * (ENOTDIR/ELOOP), not followed. Symlinks inside the workdir still work as users expect
 * (`CLAUDE.md -> AGENTS.md`, `packages/x -> ../x`): we read the link ourselves and go on from the
 * directory it names, as long as that is inside the workdir; a link leading out is refused.
 *
 * Races are harmless by construction: a descriptor pins the directory it names, so a rename of
 * that directory later moves our view with it (still inside the workdir: a sandboxed command
 * cannot move anything out of its mount), and a link read while it is being swapped only changes
 * which path inside the workdir we walk next.
 */
import { mkdirSync, readlinkSync, type Stats } from 'node:fs';
import { closeQuietly, fdPath, openEntry, reopenPath, statOf } from './proc-fd';
import { linkLeadsOutside, outside, WorkdirRefusal } from './workdir-refusal';

/** Linux's limit on symlinks followed in one resolution. */
const MAX_LINKS = 40;
/** Times a component may change under us (a link that is no longer one when read) before the path counts as unusable. */
const MAX_CHANGES = 1000;

export interface ResolveOptions {
  /** Follow a symlink in the last component (read or write through it) or not (remove the link itself). */
  followLast: boolean;
  /**
   * Follow links inside the workdir on the way (default). Off for restores: a snapshot never
   * records a path through a link, so a link on the way is refused rather than written through.
   */
  followLinks?: boolean;
  /** Create missing directories on the way, one component at a time, never through a link. */
  createDirectories?: boolean;
  /** Called for each directory created (the parent's descriptor and the new name): its owner is set there. */
  onDirectoryCreated?: (parent: number, name: string) => void;
  /**
   * A missing directory on the way ends the walk instead of failing it: the location is the
   * deepest existing directory, `relative` the path as it would be (for naming a file that a
   * Write is about to create). Nothing missing can be a link, so the rest is resolved as text.
   */
  missingTail?: boolean;
}

export interface Location {
  /** An `O_PATH` descriptor of the directory holding the last component; the caller closes it. */
  parent: number;
  /** The last component; '' when the path is the workdir itself (then `parent` is the workdir). */
  name: string;
  /** The canonical path relative to the workdir: no links, no `.` or `..`; '' for the workdir. */
  relative: string;
  /** What the last component is, when it exists (with followLast, never a symlink). */
  stats?: Stats;
  /** An `O_PATH` descriptor of the last component when it exists; the caller closes it. */
  fd?: number;
}

interface Where {
  /** The workdir's descriptor (never closed here) and its real path (for absolute link targets and messages). */
  root: number;
  rootPath: string;
  /** The path as the caller gave it, for messages. */
  requested: string;
}

/** Closes what a resolution returned. */
export function release(location: Location): void {
  closeQuietly(location.fd);
  closeQuietly(location.parent);
}

/** Resolves `components` (relative to the workdir; `..` allowed while it stays inside). */
export function resolveBeneath(where: Where, components: readonly string[], options: ResolveOptions): Location {
  const stack: { fd: number; name: string }[] = [];
  const pending = components.filter(isStep);
  let links = 0;
  let changes = 0;
  const top = () => (stack.length ? stack[stack.length - 1]!.fd : where.root);
  const pathOf = (name: string) => [...stack.map((entry) => entry.name), name].filter(Boolean).join('/');
  try {
    while (pending.length > 0) {
      const part = pending.shift()!;
      if (part === '..') {
        climbUp(where, stack, links);
        continue;
      }
      const last = pending.length === 0;
      let fd: number;
      try {
        fd = openEntry(top(), part);
      } catch (error) {
        const missing = missingEntry(error, where, top(), part, pending, pathOf, options);
        if (missing) return missing;
        // Created: opened on the next round, like any other directory.
        pending.unshift(part);
        continue;
      }
      const stats = statOf(fd);
      if (stats.isSymbolicLink() && (!last || options.followLast)) {
        closeQuietly(fd);
        if (options.followLinks === false)
          throw Object.assign(new Error(`${pathOf(part)} is a symbolic link, not a directory`), { code: 'ENOTDIR' });
        if (++links > MAX_LINKS)
          throw new WorkdirRefusal(`Path ${where.requested} goes through too many symbolic links (a loop?).`);
        const target = readLink(top(), part);
        if (target === undefined) {
          // Swapped for something else since it was opened: look at it again (a racer cannot keep us here for ever).
          if (++changes > MAX_CHANGES)
            throw new WorkdirRefusal(
              `Path ${where.requested} keeps changing while it is resolved; try again.`,
              'changing while resolved',
            );
          links--;
          pending.unshift(part);
          continue;
        }
        const expansion = linkSteps(where, target);
        if (expansion.absolute) stack.splice(0).forEach((entry) => closeQuietly(entry.fd));
        pending.unshift(...expansion.steps);
        continue;
      }
      if (last) return { parent: reopenPath(top()), name: part, relative: pathOf(part), stats, fd };
      if (!stats.isDirectory()) {
        closeQuietly(fd);
        throw Object.assign(new Error(`${pathOf(part)} is not a directory`), { code: 'ENOTDIR' });
      }
      stack.push({ fd, name: part });
    }
    return directoryItself(where, stack);
  } finally {
    stack.forEach((entry) => closeQuietly(entry.fd));
  }
}

/** A `..`: one directory up. Climbing out is refused, and said to be a link's doing when a link brought the walk here. */
function climbUp(where: Where, stack: { fd: number; name: string }[], links: number): void {
  if (stack.length === 0)
    throw links > 0 ? linkLeadsOutside(where.requested, where.rootPath) : outside(where.requested, where.rootPath);
  closeQuietly(stack.pop()!.fd);
}

/**
 * A component that could not be opened: unless it is missing, the error stands. Missing, it is
 * the location when last (or with `missingTail`); else it is created (`createDirectories`) and
 * undefined returned, or the error stands. `rest`: the components after it.
 */
function missingEntry(
  error: unknown,
  where: Where,
  parent: number,
  part: string,
  rest: readonly string[],
  pathOf: (name: string) => string,
  options: ResolveOptions,
): Location | undefined {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  if (rest.length === 0) return { parent: reopenPath(parent), name: part, relative: pathOf(part) };
  if (options.missingTail)
    return {
      parent: reopenPath(parent),
      name: part,
      relative: textualTail(where, pathOf(''), [part, ...rest]),
    };
  if (!options.createDirectories) throw error;
  createDirectory(parent, part, options);
  return undefined;
}

/** The path named a directory (or the workdir): the location of that directory in its parent. */
function directoryItself(where: Where, stack: { fd: number; name: string }[]): Location {
  if (stack.length === 0) {
    const fd = reopenPath(where.root);
    return { parent: reopenPath(where.root), name: '', relative: '', stats: statOf(fd), fd };
  }
  const dir = stack.pop()!;
  const parent = stack.length ? stack[stack.length - 1]!.fd : where.root;
  return {
    parent: reopenPath(parent),
    name: dir.name,
    relative: [...stack.map((entry) => entry.name), dir.name].join('/'),
    stats: statOf(dir.fd),
    fd: dir.fd,
  };
}

/** A link's target as steps to walk: relative to the link's directory, or from the workdir when absolute inside it. */
function linkSteps(where: Where, target: string): { steps: string[]; absolute: boolean } {
  if (!target.startsWith('/')) return { steps: target.split('/').filter(isStep), absolute: false };
  if (target !== where.rootPath && !target.startsWith(`${where.rootPath}/`))
    throw linkLeadsOutside(where.requested, where.rootPath);
  return { steps: target.slice(where.rootPath.length).split('/').filter(isStep), absolute: true };
}

/** A link's target; undefined when the entry is no longer a link, or gone. */
function readLink(parent: number, name: string): string | undefined {
  try {
    return readlinkSync(fdPath(parent, name));
  } catch (error) {
    if (['EINVAL', 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}

function createDirectory(parent: number, name: string, options: ResolveOptions): void {
  try {
    // mkdir never follows a link in its last component: a symlink planted here makes it EEXIST.
    mkdirSync(fdPath(parent, name));
    options.onDirectoryCreated?.(parent, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

const isStep = (part: string) => part !== '' && part !== '.';

/** `base` and steps that do not exist, `..` taken as text (nothing missing is a link). */
function textualTail(where: Where, base: string, steps: string[]): string {
  const parts = base === '' ? [] : base.split('/');
  for (const step of steps) {
    if (step !== '..') parts.push(step);
    else if (parts.length > 0) parts.pop();
    else throw outside(where.requested, where.rootPath);
  }
  return parts.join('/');
}
