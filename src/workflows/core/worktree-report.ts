/**
 * What the parent's model reads of a writing sub-agent's merge (issue 27), pure: the files merged
 * into its workdir, each conflict with its hunks (the parent's lines, which stayed, and the
 * sub-agent's, which did not), and where the sub-agent's version is kept.
 */
import type { MergeConflict, MergeWorktreeOutput } from '../../shared/worktrees';

/** Files named in the list of merged files; the rest are counted. */
const MERGED_NAMED = 20;
/** Lines shown per side of a conflict hunk. */
const HUNK_LINES_SHOWN = 12;

export interface WorktreeView {
  /** The child's workflow id: `durable-agent diff <id>` shows its changes. */
  workflowId: string;
  worktree: string;
  host?: string;
}

export function mergeReport(merge: MergeWorktreeOutput, view: WorktreeView): string {
  const lines: string[] = [];
  if (merge.filesMerged === 0 && merge.conflictCount === 0)
    lines.push('The sub-agent changed no files: nothing to merge.');
  else if (merge.filesMerged > 0) lines.push(`Merged into your workdir: ${mergedList(merge)}.`);
  else lines.push('Nothing of its changes could be merged into your workdir.');
  if (merge.conflictCount > 0) {
    lines.push(
      `Conflicts in ${merge.conflictCount} file${merge.conflictCount === 1 ? '' : 's'}, whose conflicting parts stay as they are in your workdir:`,
    );
    for (const conflict of merge.conflicts) lines.push(...conflictLines(conflict));
    if (merge.conflicts.length < merge.conflictCount)
      lines.push(`(${merge.conflictCount - merge.conflicts.length} more files with conflicts not shown.)`);
    lines.push(
      `The sub-agent's version is kept: its worktree ${view.worktree}${view.host ? ` on host ${view.host}` : ''}, and its changes in \`durable-agent diff ${view.workflowId}\`. Apply what you need of its side with Edit.`,
    );
  }
  return lines.join('\n');
}

/** What a writing sub-agent is told of its worktree: where it works, and what becomes of its changes. */
export function worktreeNote(parentWorkdir: string, worktree: string): string {
  return [
    `You work in a worktree of your own, ${worktree}: a copy of the files of ${parentWorkdir} as they were when you started, without its .git (git commands find no repository here).`,
    `Change files here only. When you finish, what you changed is merged into ${parentWorkdir}; changes that conflict with the parent's are reported to it, not applied.`,
    'Other agents may be changing other parts of the same code at the same time: keep to your task.',
  ].join(' ');
}

/** Why a sub-agent's work was not merged, and where it is. */
export function notMergedReport(why: string, view: WorktreeView): string {
  return `Nothing of its work was merged (${why}): its files stay in its worktree ${view.worktree}${view.host ? ` on host ${view.host}` : ''}; \`durable-agent diff ${view.workflowId}\` shows what it changed.`;
}

function mergedList(merge: MergeWorktreeOutput): string {
  const named = merge.merged.slice(0, MERGED_NAMED).join(', ');
  const more = merge.filesMerged - Math.min(merge.merged.length, MERGED_NAMED);
  return `${merge.filesMerged} file${merge.filesMerged === 1 ? '' : 's'} (${named}${more > 0 ? `, and ${more} more` : ''})`;
}

const WHY: Record<MergeConflict['why'], string> = {
  both_changed: 'you and the sub-agent changed the same lines',
  changed_and_deleted: 'one side changed the file, the other deleted it',
  not_text: 'not a text file, changed on both sides',
};

function conflictLines(conflict: MergeConflict): string[] {
  const lines = [`- ${conflict.path}: ${WHY[conflict.why]}`];
  for (const hunk of conflict.hunks) {
    lines.push(`  at line ${hunk.line}, yours:`, ...shown(hunk.ours), `  the sub-agent's:`, ...shown(hunk.theirs));
  }
  return lines;
}

function shown(lines: readonly string[]): string[] {
  const kept = lines.slice(0, HUNK_LINES_SHOWN).map((line) => `    | ${line}`);
  if (lines.length === 0) return ['    (no lines)'];
  return lines.length > HUNK_LINES_SHOWN ? [...kept, `    | … ${lines.length - HUNK_LINES_SHOWN} more lines`] : kept;
}
