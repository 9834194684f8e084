import { commandEnvironment, withProjectDir } from '../../../src/sandbox/command-environment';

test('CLAUDE_PROJECT_DIR is the workdir, over what the session sets, keeping its other variables', () => {
  expect(withProjectDir({ env: { A: '1', CLAUDE_PROJECT_DIR: '/elsewhere' }, network: 'none' as const }, '/w')).toEqual(
    {
      env: { A: '1', CLAUDE_PROJECT_DIR: '/w' },
      network: 'none',
    },
  );
  expect(withProjectDir(undefined, '/w')).toEqual({ env: { CLAUDE_PROJECT_DIR: '/w' } });
  // The worker's own variable of that name never reaches a command: only the session's sandbox sets it.
  expect(commandEnvironment({ CLAUDE_PROJECT_DIR: '/worker' }).CLAUDE_PROJECT_DIR).toBeUndefined();
});
