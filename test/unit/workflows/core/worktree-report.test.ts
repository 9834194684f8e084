import type { MergeWorktreeOutput } from '../../../../src/shared/worktrees';
import { mergeReport, notMergedReport, worktreeNote } from '../../../../src/workflows/core/worktree-report';

const view = { workflowId: 'p-task-toolu_b', worktree: '/w/worktree-b', host: 'host-a' };
const clean: MergeWorktreeOutput = {
  merged: ['a.txt', 'b.txt'],
  filesMerged: 2,
  conflicts: [],
  conflictCount: 0,
  snapshot: { ref: 'r', filesChanged: 2 },
  childRef: 'c',
};

test('a clean merge names the files merged, the rest counted', () => {
  expect(mergeReport(clean, view)).toBe('Merged into your workdir: 2 files (a.txt, b.txt).');
  const many = Array.from({ length: 25 }, (_, index) => `f${index}.txt`);
  expect(mergeReport({ ...clean, merged: many, filesMerged: 300 }, view)).toBe(
    `Merged into your workdir: 300 files (${many.slice(0, 20).join(', ')}, and 280 more).`,
  );
  expect(mergeReport({ ...clean, merged: [], filesMerged: 0 }, view)).toBe(
    'The sub-agent changed no files: nothing to merge.',
  );
});

test("a conflict shows each hunk's two sides, and where the sub-agent's version is kept", () => {
  const report = mergeReport(
    {
      ...clean,
      merged: [],
      filesMerged: 0,
      conflicts: [
        {
          path: 'shared.txt',
          why: 'both_changed',
          hunks: [{ line: 2, base: ['two'], ours: ['two A'], theirs: ['two B'] }],
        },
        { path: 'gone.txt', why: 'changed_and_deleted', hunks: [] },
      ],
      conflictCount: 3,
    },
    view,
  );
  expect(report).toBe(
    [
      'Nothing of its changes could be merged into your workdir.',
      'Conflicts in 3 files, whose conflicting parts stay as they are in your workdir:',
      '- shared.txt: you and the sub-agent changed the same lines',
      '  at line 2, yours:',
      '    | two A',
      "  the sub-agent's:",
      '    | two B',
      '- gone.txt: one side changed the file, the other deleted it',
      '(1 more files with conflicts not shown.)',
      "The sub-agent's version is kept: its worktree /w/worktree-b on host host-a, and its changes in `durable-agent diff p-task-toolu_b`. Apply what you need of its side with Edit.",
    ].join('\n'),
  );
});

test('long hunks are cut; an empty side says so', () => {
  const ours = Array.from({ length: 15 }, (_, index) => `line ${index}`);
  const report = mergeReport(
    {
      ...clean,
      conflicts: [{ path: 'x', why: 'both_changed', hunks: [{ line: 1, base: [], ours, theirs: [] }] }],
      conflictCount: 1,
    },
    view,
  );
  expect(report).toContain('    | line 11\n    | … 3 more lines\n');
  expect(report).toContain("  the sub-agent's:\n    (no lines)");
});

test('an unfinished sub-agent merges nothing, and the result says where its files are', () => {
  expect(notMergedReport('the sub-agent stopped before it finished: aborted_tools', { ...view, host: undefined })).toBe(
    'Nothing of its work was merged (the sub-agent stopped before it finished: aborted_tools): its files stay in its worktree /w/worktree-b; `durable-agent diff p-task-toolu_b` shows what it changed.',
  );
});

test('a writing sub-agent is told where it works, that git finds no repository there, and where its changes go', () => {
  const note = worktreeNote('/srv/app', '/w/worktree-b');
  expect(note).toContain('You work in a worktree of your own, /w/worktree-b: a copy of the files of /srv/app');
  expect(note).toContain('git commands find no repository here');
  expect(note).toContain('what you changed is merged into /srv/app');
});
