/** Which paths a session's commit may hold: none with a `.git` component, in any spelling git refuses. */
import { pathProblem } from '../../../src/git/branch-changes';

test('a .git component is refused whatever its case or trailing dots and spaces, and so is its short name', () => {
  for (const path of ['.git/config', 'a/.git', 'a/.GIT/hooks/pre-commit', 'x/.Git./y', 'x/.git /y', 'GIT~1/config'])
    expect(pathProblem(path)).toContain('.git component');
  for (const path of ['a/..', 'a//b', './a', '']) expect(pathProblem(path)).toBe('not a plain relative path');
  for (const path of ['.gitignore', '.github/workflows/ci.yml', 'a/.gitmodules', 'git/x', 'my.git/y'])
    expect(pathProblem(path)).toBeUndefined();
});
