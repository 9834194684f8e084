import type { FileChange, FileChangeKind } from '../shared/workspace';

const VERBS: Record<FileChangeKind, string> = { added: 'created', modified: 'modified', deleted: 'deleted' };

/**
 * Changes in one line, for people and for the model: `created src/a.ts, modified src/b.ts,
 * deleted c.txt`, the first `limit` of them and a count of the rest. '' when there are none.
 */
export function describeChanges(changes: FileChange[], limit = 50): string {
  const shown = changes.slice(0, Math.max(0, limit)).map(({ path, change }) => `${VERBS[change]} ${path}`);
  const more = changes.length - shown.length;
  if (more === 0) return shown.join(', ');
  return shown.length === 0 ? `${more} files changed` : `${shown.join(', ')}, … and ${more} more`;
}
