import type { SkippedSetting } from '../../../../src/shared/hooks';
import { readPermissions, trustedPermissions } from '../../../../src/activities/hooks/settings-permissions';

const FILE = '.claude/settings.json';

function read(value: unknown) {
  const skipped: Omit<SkippedSetting, 'file'>[] = [];
  const permissions = readPermissions(FILE, value, (path, reason) => skipped.push({ path, reason }));
  return { permissions, skipped };
}

test('rules are kept one by one; a rule that is not one is skipped with a note, never fatal', () => {
  expect(
    read({
      allow: ['Bash(npm test:*)', 42, 'rm -rf'],
      deny: ['Bash(rm -rf:*)', 'Read(./.env)'],
      ask: 'Bash(git push:*)',
      defaultMode: 'acceptEdits',
      additionalDirectories: ['../other'],
      disableBypassPermissionsMode: 'disable',
    }),
  ).toEqual({
    permissions: {
      file: FILE,
      allow: ['Bash(npm test:*)'],
      deny: ['Bash(rm -rf:*)', 'Read(./.env)'],
      defaultMode: 'acceptEdits',
    },
    skipped: [
      { path: 'permissions.allow.1', reason: 'rule skipped: a rule is a string like "Bash(npm test:*)"' },
      { path: 'permissions.allow.2', reason: expect.stringContaining('rule skipped: must look like') },
      { path: 'permissions.ask', reason: 'expected a list of rules like "Bash(npm test:*)"' },
      { path: 'permissions.additionalDirectories', reason: 'not used: a session works only in its workdir' },
      { path: 'permissions.disableBypassPermissionsMode', reason: expect.stringContaining('does not read') },
    ],
  });
  expect(read({ defaultMode: 'yolo' }).skipped).toEqual([
    { path: 'permissions.defaultMode', reason: expect.stringContaining('not a permission mode') },
  ]);
  expect(read('Bash').permissions).toBeUndefined();
  expect(read({}).permissions).toBeUndefined();
});

test('deny and ask rules apply untrusted; allow rules and defaultMode only when trusted; never a bypass', () => {
  const files = [
    { file: FILE, allow: ['Bash'], deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'], defaultMode: 'dontAsk' as const },
    { file: '.claude/settings.local.json', defaultMode: 'bypassPermissions' as const },
  ];
  expect(trustedPermissions(files, false)).toEqual({
    applied: [{ file: FILE, deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] }],
    untrusted: [`${FILE} (permissions: allow rules, defaultMode)`],
    skipped: [],
  });
  expect(trustedPermissions(files, true)).toEqual({
    applied: [files[0]],
    untrusted: [],
    skipped: [
      {
        file: '.claude/settings.local.json',
        path: 'permissions.defaultMode',
        reason: 'a repository cannot turn asking off',
      },
    ],
  });
});
