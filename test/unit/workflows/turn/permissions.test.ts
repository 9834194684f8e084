import type { PlannedToolUse } from '../../../../src/shared/activity-io';
import { startingPermissionMode } from '../../../../src/workflows/core/approval-rules';
import { checkAgentInput, type ResolvedAgentInput } from '../../../../src/shared/input';
import type { SettingsPermissions } from '../../../../src/shared/permissions';
import {
  currentPermissionMode,
  type PermissionSession,
  permissionFor,
} from '../../../../src/workflows/turn/permissions';

const WORKDIR = '/work/repo';

function session(input: Record<string, unknown>, settingsPermissions?: SettingsPermissions[]): PermissionSession {
  const check = checkAgentInput({ prompt: 'p', workdir: WORKDIR, ...input });
  if (!check.ok) throw new Error(check.message);
  const resolved = check.input as ResolvedAgentInput;
  return {
    input: resolved,
    prepared: { workdir: WORKDIR, ...(settingsPermissions ? { settingsPermissions } : {}) },
    state: { workdir: WORKDIR },
    // As AgentSession's before plan mode changes it: the mode the session started in.
    permissionMode: () => startingPermissionMode(resolved, settingsPermissions),
  } as unknown as PermissionSession;
}

const bash = (command: string): PlannedToolUse => ({
  id: 'toolu_1',
  name: 'Bash',
  input: { command },
  plan: {
    ok: true,
    concurrencySafe: false,
    summary: command,
    rules: { needsApproval: true, subject: command, commands: [command.split(' ')] },
  },
});

test('the mode: the input, else its defaultMode, else a trusted repository’s (local settings last), else auto', () => {
  const files = [
    { file: '.claude/settings.json', defaultMode: 'plan' as const },
    { file: '.claude/settings.local.json', defaultMode: 'acceptEdits' as const },
  ];
  expect(currentPermissionMode(session({}))).toBe('bypassPermissions');
  expect(currentPermissionMode(session({ permissionMode: 'ask' }))).toBe('default');
  expect(currentPermissionMode(session({}, files))).toBe('acceptEdits');
  expect(currentPermissionMode(session({ permissionMode: 'dontAsk' }, files))).toBe('dontAsk');
  expect(currentPermissionMode(session({ permissions: { defaultMode: 'default' } }, files))).toBe('default');
});

test('every source decides together: input rules, allowRules and the settings files', () => {
  const files = [{ file: '.claude/settings.json', deny: ['Bash(rm:*)'] }];
  const asking = session(
    { permissionMode: 'default', allowRules: ['Bash(ls)'], permissions: { ask: ['Bash(git push:*)'] } },
    files,
  );
  expect(permissionFor(asking, bash('ls'), undefined)).toEqual({ behavior: 'allow' });
  expect(permissionFor(asking, bash('git push'), undefined)).toMatchObject({ behavior: 'ask', byRule: true });
  expect(permissionFor(asking, bash('rm x'), 'allow')).toMatchObject({
    behavior: 'deny',
    message: expect.stringContaining('by rule Bash(rm:*) from .claude/settings.json'),
  });
  expect(permissionFor(asking, bash('make'), undefined)).toMatchObject({ behavior: 'ask' });
});
