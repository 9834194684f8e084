import { isWorktreeName, worktreeName } from '../../../src/shared/worktrees';

describe('worktreeName', () => {
  test('stable: the same id always gives the same name', () => {
    expect(worktreeName('session-1/agent-toolu_01')).toBe(worktreeName('session-1/agent-toolu_01'));
    expect(worktreeName('abc')).toMatch(/^worktree-[0-9a-f]{16}-abc$/);
  });

  test('safe: one directory name whatever the id holds', () => {
    for (const id of ['../../etc', 'a/b/c', '..', '.', '', 'ünïcödé 空白', '\0\n', 'x'.repeat(500)]) {
      const name = worktreeName(id);
      expect(isWorktreeName(name)).toBe(true);
      expect(name.length).toBeLessThanOrEqual(80);
    }
  });

  test('distinct ids give distinct names, also where their safe tails are the same', () => {
    const ids = ['a/b', 'a_b', 'a:b', 'a b', ...Array.from({ length: 2000 }, (_, index) => `session/agent-${index}`)];
    ids.push(`${'p'.repeat(100)}-1`, `${'q'.repeat(100)}-1`);
    expect(new Set(ids.map(worktreeName)).size).toBe(ids.length);
  });
});

test('isWorktreeName: one path component of safe characters', () => {
  expect(isWorktreeName('worktree-0123-abc')).toBe(true);
  for (const name of ['', '.', '..', 'a/b', '../a', 'a b', 'x'.repeat(201), 7, undefined])
    expect(isWorktreeName(name)).toBe(false);
});
