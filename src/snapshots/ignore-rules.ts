/**
 * What a snapshot leaves out, by the repository's own ignore rules: `.gitignore` files in every
 * directory (each relative to its own directory) and `.git/info/exclude`. Without them a snapshot
 * would copy node_modules and build output into the store at every turn.
 */
import type { Stats } from 'node:fs';
import ignore, { type Ignore } from 'ignore';
import type { DirectoryHandle } from '../workdir/directory-handle';
import { readWithin } from '../workdir/read-regular';
import type { Workdir } from '../workdir/workdir';

/** An ignore file larger than this is not read (git has no limit; nothing real comes near it). */
const IGNORE_FILE_MAX_BYTES = 1024 * 1024;

interface RuleLayer {
  /** The directory the rules belong to, relative to the workdir ('' for the workdir itself). */
  base: string;
  rules: Ignore;
}

/**
 * The rules in force in one directory: its ancestors' layers, shallowest first. Immutable, so a
 * directory's layers are shared with its subdirectories instead of copied.
 */
export class IgnoreRules {
  private constructor(private readonly layers: readonly RuleLayer[]) {}

  /**
   * The workdir's `.git/info/exclude`, the layer below every `.gitignore` (as in git). Only a
   * regular file counts: a FIFO planted there is never opened (it would stall the read).
   */
  static async forWorkdir(workdir: Workdir): Promise<IgnoreRules> {
    const opened = workdirFile(workdir, '.git/info/exclude');
    const exclude = opened && (await readIgnoreFile(opened));
    return new IgnoreRules(exclude === undefined ? [] : [{ base: '', rules: newRules(exclude) }]);
  }

  /** These rules with those of a directory's own `.gitignore`, when it has a regular one (git does not follow a symlinked one either). */
  async withGitignoreOf(directory: DirectoryHandle): Promise<IgnoreRules> {
    const opened = directory.openFile('.gitignore');
    const text = opened && (await readIgnoreFile(opened));
    return text === undefined ? this : this.withGitignore(directory.relative, text);
  }

  /** The rules for a directory that holds a `.gitignore` with this text. */
  withGitignore(base: string, text: string): IgnoreRules {
    return new IgnoreRules([...this.layers, { base, rules: newRules(text) }]);
  }

  /**
   * Deeper rules win, as in git: the deepest layer with a rule matching the path decides, a
   * negation (`!keep.log`) included. A path whose directory is ignored is never asked about:
   * ignored directories are not descended, which is also git's rule that a file cannot be
   * re-included when its directory is excluded.
   */
  ignores(path: string, isDirectory: boolean): boolean {
    for (let index = this.layers.length - 1; index >= 0; index--) {
      const { base, rules } = this.layers[index]!;
      // Directory rules (`build/`) match only paths given with a trailing slash.
      const relative = (base === '' ? path : path.slice(base.length + 1)) + (isDirectory ? '/' : '');
      const result = rules.test(relative);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }
}

function workdirFile(workdir: Workdir, path: string): { fd: number; stats: Stats } | undefined {
  try {
    return workdir.openFile(path);
  } catch {
    return undefined;
  }
}

async function readIgnoreFile({ fd, stats }: { fd: number; stats: Stats }): Promise<string | undefined> {
  const data = await readWithin(fd, stats, '.gitignore', {
    maxBytes: IGNORE_FILE_MAX_BYTES,
    tooLarge: () => 'too large',
  }).catch(() => undefined);
  return data?.toString('utf8');
}

function newRules(text: string): Ignore {
  // Git on Linux matches case-sensitively (core.ignorecase is false); the package defaults to true.
  return ignore({ ignorecase: false }).add(text);
}
