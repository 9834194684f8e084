import type { PlannedToolUse, ToolRules } from '../../../../src/shared/activity-io';
import { needsPerson } from '../../../../src/workflows/turn/tool-hooks';

const call = (rules: ToolRules = {}): PlannedToolUse => ({
  id: 'toolu_1',
  name: 'Bash',
  input: { command: 'ls' },
  plan: { ok: true, concurrencySafe: false, summary: 'Bash ls', rules },
});

describe('a PreToolUse decision and the approval path', () => {
  test('ask needs a person even when no rule asks for one', () => {
    expect(needsPerson('ask', call(), false)).toBe(true);
  });

  test("allow skips a person's approval the rules would ask for", () => {
    expect(needsPerson('allow', call({ needsApproval: true }), true)).toBe(false);
  });

  test('allow does not approve what only a person may (a repository settings file)', () => {
    expect(needsPerson('allow', call({ needsApproval: true, alwaysAsk: 'a settings file' }), true)).toBe(true);
  });

  test('no decision: the rules decide; invalid calls never wait', () => {
    expect(needsPerson(undefined, call(), true)).toBe(true);
    expect(needsPerson(undefined, call(), false)).toBe(false);
    expect(needsPerson('ask', { id: 't', name: 'Bash', input: {}, plan: { ok: false, errorText: 'bad' } }, false)).toBe(
      false,
    );
  });
});
