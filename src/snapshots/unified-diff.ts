/**
 * The changes between two snapshots as a git-style unified diff: what people review, and what
 * `git apply` understands. Hunks come from the `diff` package; files without text to show say why.
 */
import { formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import type { ContentStore } from '../store/content-store';
import { DIFF_TIMEOUT_MS, gitModeOf, loadDiffSide, selectPaths, textOf } from './diff-content';
import { diffTrees, type EntryChange } from './tree';
import type { LeafEntry } from './tree-node';

export { diffStat, formatDiffStat } from './diff-stat';

/** Lines of context around each change, as git shows by default. */
const CONTEXT_LINES = 3;

export const BINARY_NOTE = 'Binary files differ';
export const BIG_FILE_NOTE = 'File over the snapshot size limit; content not recorded';
export const SLOW_DIFF_NOTE = 'Files differ (too many changes to compute a diff in time)';

export interface UnifiedDiffOptions {
  /** Only these files, or the files under these directories (relative to the workdir). */
  paths?: string[];
  /** Cut the output at about this many bytes, with a note saying how many files were left out. */
  maxBytes?: number;
  signal?: AbortSignal;
}

export async function unifiedDiff(
  store: ContentStore,
  fromRef: string,
  toRef: string,
  options: UnifiedDiffOptions = {},
): Promise<string> {
  const { maxBytes, signal } = options;
  const changes = selectPaths(await diffTrees(store, fromRef, toRef, signal), options.paths);
  let output = '';
  let bytes = 0;
  for (let index = 0; index < changes.length; index++) {
    signal?.throwIfAborted();
    const section = await sectionsOf(store, changes[index]!);
    const sectionBytes = Buffer.byteLength(section);
    if (maxBytes !== undefined && bytes + sectionBytes > maxBytes) {
      // As much of this file's diff as fits, cut at a line boundary.
      const room = Buffer.from(section)
        .subarray(0, Math.max(0, maxBytes - bytes))
        .toString('utf8');
      const cut = room.slice(0, room.lastIndexOf('\n') + 1);
      const notShown = changes.length - index;
      return `${output}${cut}… diff truncated at ${maxBytes} bytes: ${notShown} of ${changes.length} files not shown${cut ? ' in full' : ''}\n`;
    }
    output += section;
    bytes += sectionBytes;
  }
  return output;
}

/** A file swapped for a symlink (or back) shows as a deletion and an addition, as in git. */
async function sectionsOf(store: ContentStore, { path, from, to }: EntryChange): Promise<string> {
  if (from !== undefined && to !== undefined && from.t !== to.t) {
    return (await sectionOf(store, path, from, undefined)) + (await sectionOf(store, path, undefined, to));
  }
  return sectionOf(store, path, from, to);
}

async function sectionOf(
  store: ContentStore,
  path: string,
  from: LeafEntry | undefined,
  to: LeafEntry | undefined,
): Promise<string> {
  const [before, after] = await Promise.all([loadDiffSide(store, from), loadDiffSide(store, to)]);
  const oldFileName = from ? `a/${path}` : '/dev/null';
  const newFileName = to ? `b/${path}` : '/dev/null';
  const header: StructuredPatch = {
    oldFileName,
    newFileName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [],
    isGit: true,
  };
  if (from === undefined) Object.assign(header, { isCreate: true, newMode: gitModeOf(to!) });
  else if (to === undefined) Object.assign(header, { isDelete: true, oldMode: gitModeOf(from) });
  else if (gitModeOf(from) !== gitModeOf(to))
    Object.assign(header, { oldMode: gitModeOf(from), newMode: gitModeOf(to) });

  if (before.kind === 'big' || after.kind === 'big') return `${formatPatch(header)}${BIG_FILE_NOTE}\n`;
  if (before.kind === 'binary' || after.kind === 'binary') return `${formatPatch(header)}${BINARY_NOTE}\n`;
  const patch = structuredPatch(oldFileName, newFileName, textOf(before), textOf(after), undefined, undefined, {
    context: CONTEXT_LINES,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (patch === undefined) return `${formatPatch(header)}${SLOW_DIFF_NOTE}\n`;
  return formatPatch({ ...header, hunks: patch.hunks });
}
