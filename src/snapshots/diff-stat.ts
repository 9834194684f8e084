/**
 * Line counts of the changes between two snapshots, and their rendering as git's `--stat`.
 */
import { diffLines } from 'diff';
import type { FileChangeStat } from '../shared/workspace';
import type { ContentStore } from '../store/content-store';
import { DIFF_TIMEOUT_MS, loadDiffSide, selectPaths, textOf, type DiffSide } from './diff-content';
import { diffTrees, fileChangeOf, type EntryChange } from './tree';

/** Widest bar of `+` and `-`: bigger changes are scaled down to it, as git does. */
const GRAPH_MAX_WIDTH = 50;

export async function diffStat(
  store: ContentStore,
  fromRef: string,
  toRef: string,
  options: { paths?: string[]; signal?: AbortSignal } = {},
): Promise<FileChangeStat[]> {
  const changes = selectPaths(await diffTrees(store, fromRef, toRef, options.signal), options.paths);
  const stats: FileChangeStat[] = [];
  for (const change of changes) {
    options.signal?.throwIfAborted();
    stats.push(await statOf(store, change));
  }
  return stats;
}

async function statOf(store: ContentStore, change: EntryChange): Promise<FileChangeStat> {
  const [before, after] = await Promise.all([loadDiffSide(store, change.from), loadDiffSide(store, change.to)]);
  const base = fileChangeOf(change);
  if (!hasLines(before) || !hasLines(after)) return { ...base, linesAdded: 0, linesRemoved: 0, binary: true };
  const parts = diffLines(textOf(before), textOf(after), { timeout: DIFF_TIMEOUT_MS });
  // Too slow to diff: count it as rewritten.
  if (parts === undefined)
    return { ...base, linesAdded: lineCount(textOf(after)), linesRemoved: lineCount(textOf(before)) };
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const part of parts) {
    if (part.added) linesAdded += part.count;
    else if (part.removed) linesRemoved += part.count;
  }
  return { ...base, linesAdded, linesRemoved };
}

/** Binary files and files over the size limit have no lines to count. */
function hasLines(side: DiffSide): boolean {
  return side.kind === 'text' || side.kind === 'absent';
}

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/**
 * Like `git diff --stat`:
 *
 *      src/a.ts | 3 ++-
 *      logo.png | Bin
 *      2 files changed, 2 insertions(+), 1 deletion(-)
 *
 * '' when nothing changed.
 */
export function formatDiffStat(stats: FileChangeStat[]): string {
  if (stats.length === 0) return '';
  const nameWidth = Math.max(...stats.map(({ path }) => path.length));
  const maxChange = Math.max(...stats.map((stat) => stat.linesAdded + stat.linesRemoved));
  const countWidth = Math.max(String(maxChange).length, stats.some((stat) => stat.binary) ? 3 : 0);
  const lines = stats.map((stat) => {
    const name = ` ${stat.path.padEnd(nameWidth)} | `;
    if (stat.binary) return `${name}${'Bin'.padStart(countWidth)}`;
    const total = stat.linesAdded + stat.linesRemoved;
    const [plus, minus] = graphOf(stat.linesAdded, stat.linesRemoved, maxChange);
    return `${name}${String(total).padStart(countWidth)}${total > 0 ? ' ' : ''}${'+'.repeat(plus)}${'-'.repeat(minus)}`;
  });
  const insertions = stats.reduce((sum, stat) => sum + stat.linesAdded, 0);
  const deletions = stats.reduce((sum, stat) => sum + stat.linesRemoved, 0);
  return [...lines, summaryOf(stats.length, insertions, deletions)].join('\n');
}

/** git's scaling (diff.c, show_stats): the total is scaled, then split, each side keeping at least one mark. */
function graphOf(added: number, removed: number, maxChange: number): [number, number] {
  if (maxChange <= GRAPH_MAX_WIDTH) return [added, removed];
  const scale = (it: number): number => (it === 0 ? 0 : 1 + Math.floor((it * (GRAPH_MAX_WIDTH - 1)) / maxChange));
  let total = scale(added + removed);
  if (total < 2 && added > 0 && removed > 0) total = 2;
  if (added < removed) {
    const plus = scale(added);
    return [plus, total - plus];
  }
  const minus = scale(removed);
  return [total - minus, minus];
}

/** git's wording (print_stat_summary): a zero side is left out unless both are zero. */
function summaryOf(files: number, insertions: number, deletions: number): string {
  let summary = ` ${files} ${files === 1 ? 'file' : 'files'} changed`;
  if (insertions > 0 || deletions === 0)
    summary += `, ${insertions} ${insertions === 1 ? 'insertion' : 'insertions'}(+)`;
  if (deletions > 0 || insertions === 0) summary += `, ${deletions} ${deletions === 1 ? 'deletion' : 'deletions'}(-)`;
  return summary;
}
