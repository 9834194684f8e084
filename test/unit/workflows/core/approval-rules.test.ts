import type { PlannedToolUse, ToolRules } from '../../../../src/shared/activity-io';
import type { PermissionMode } from '../../../../src/shared/permission-modes';
import { hasWildcardStar, type PermissionRuleSet } from '../../../../src/shared/permissions';
import {
  decide,
  matchesAllowRule,
  needsApproval,
  withHookDecision,
} from '../../../../src/workflows/core/approval-rules';

const call = (name: string, input: Record<string, unknown>): PlannedToolUse => ({
  id: 'toolu_1',
  name,
  input,
  plan: { ok: true, concurrencySafe: false, summary: name },
});

describe('tool approval', () => {
  test("allow rules in Claude Code's syntax", () => {
    expect(matchesAllowRule('Bash(npm test)', call('Bash', { command: 'npm test' }))).toBe(true);
    expect(matchesAllowRule('Bash(npm test)', call('Bash', { command: 'npm test && rm -rf /' }))).toBe(false);
    expect(matchesAllowRule('Bash(npm run test:*)', call('Bash', { command: 'npm run test -- --watch' }))).toBe(true);
    expect(matchesAllowRule('Bash(npm run test:*)', call('Bash', { command: 'npm run testing' }))).toBe(false);
    expect(matchesAllowRule('Edit', call('Edit', { file_path: 'a.ts' }))).toBe(true);
    expect(matchesAllowRule('Edit(src/a.ts)', call('Edit', { file_path: 'src/a.ts' }))).toBe(true);
    expect(matchesAllowRule('Write', call('Edit', { file_path: 'a.ts' }))).toBe(false);
  });

  test('ask mode holds Write, Edit and Bash unless a rule allows them', () => {
    expect(needsApproval('auto', [], call('Bash', { command: 'rm x' }))).toBe(false);
    expect(needsApproval('ask', [], call('Bash', { command: 'rm x' }))).toBe(true);
    expect(needsApproval('ask', [], call('Read', { file_path: 'a' }))).toBe(false);
    expect(needsApproval('ask', ['Bash(git status)'], call('Bash', { command: 'git status' }))).toBe(false);
    expect(needsApproval('ask', [], { ...call('Write', {}), plan: { ok: false, errorText: 'bad' } })).toBe(false);
  });
});

describe('allow rules for MCP tools', () => {
  const mcpCall = (name: string, server: string): PlannedToolUse => ({
    id: 'toolu_mcp',
    name,
    input: {},
    plan: {
      ok: true,
      concurrencySafe: false,
      summary: name,
      rules: {
        needsApproval: true,
        subject: '',
        mcp: { server, tool: 'lookup' },
        allowedBy: [`mcp__${server}`, `mcp__${server}__*`],
      },
    },
  });

  test('mcp__server__tool approves that tool; mcp__server and mcp__server__* every tool of the server', () => {
    const lookup = mcpCall('mcp__tracker__lookup', 'tracker');
    expect(needsApproval('ask', [], lookup)).toBe(true);
    expect(needsApproval('auto', [], lookup)).toBe(false);
    expect(matchesAllowRule('mcp__tracker__lookup', lookup)).toBe(true);
    expect(matchesAllowRule('mcp__tracker', lookup)).toBe(true);
    expect(matchesAllowRule('mcp__tracker__*', lookup)).toBe(true);
    expect(matchesAllowRule('mcp__tracker__close', lookup)).toBe(false);
    expect(matchesAllowRule('mcp__track', lookup)).toBe(false);
    expect(matchesAllowRule('mcp__other', lookup)).toBe(false);
    expect(matchesAllowRule('mcp__tracker(anything)', lookup)).toBe(false);
    // A server named like another's prefix gets no rule of it.
    expect(matchesAllowRule('mcp__tracker', mcpCall('mcp__tracker_admin__lookup', 'tracker_admin'))).toBe(false);
    expect(needsApproval('ask', ['mcp__tracker'], lookup)).toBe(false);
  });

  test('a rule naming a tool by another of its names (Task for Agent) matches its calls, by the aliases their plan lists', () => {
    const agent = (name: string, aliases: string[]): PlannedToolUse => ({
      id: 'toolu_1',
      name,
      input: { description: 'look', prompt: 'look around' },
      plan: { ok: true, concurrencySafe: true, summary: name, rules: { subject: 'look', aliases } },
    });
    for (const rule of ['Task', 'Agent', 'Task(look)', 'Agent(look)']) {
      expect(matchesAllowRule(rule, agent('Agent', ['Task']))).toBe(true);
      expect(matchesAllowRule(rule, agent('Task', ['Agent']))).toBe(true);
    }
    expect(matchesAllowRule('Agent(other)', agent('Agent', ['Task']))).toBe(false);
    expect(matchesAllowRule('Read', agent('Agent', ['Task']))).toBe(false);
  });
});

describe("decide: Claude Code's modes and deny → ask → allow", () => {
  const WORKDIR = '/work/repo';
  const planned = (name: string, rules: ToolRules, filePath?: string): PlannedToolUse => ({
    id: 'toolu_1',
    name,
    input: {},
    plan: { ok: true, concurrencySafe: false, summary: name, rules, ...(filePath ? { filePath } : {}) },
  });
  const bash = (command: string) =>
    planned('Bash', {
      needsApproval: true,
      subject: command,
      commands: command.split(' && ').map((c) => c.split(' ')),
    });
  const edit = (path: string, extra: ToolRules = {}) =>
    planned(
      'Edit',
      { needsApproval: true, subject: path, editsFiles: true, rulePath: `${WORKDIR}/${path}`, ...extra },
      `${WORKDIR}/${path}`,
    );
  const read = (path: string) =>
    planned('Read', { readsFile: true, rulePath: `${WORKDIR}/${path}` }, `${WORKDIR}/${path}`);
  const settingsEdit = edit('.claude/settings.json', { alwaysAsk: 'it changes .claude/settings.json' });
  const set = (sets: Partial<Record<'allow' | 'deny' | 'ask', string[]>>): PermissionRuleSet => ({
    allow: (sets.allow ?? []).map((rule) => ({ rule, source: 'input permissions' })),
    deny: (sets.deny ?? []).map((rule) => ({ rule, source: '.claude/settings.json' })),
    ask: (sets.ask ?? []).map((rule) => ({ rule, source: 'input permissions' })),
  });
  const behavior = (mode: PermissionMode, rules: PermissionRuleSet, call: PlannedToolUse) =>
    decide(mode, rules, call, WORKDIR).behavior;

  const NONE = set({});
  test.each<[PermissionMode, PlannedToolUse, 'allow' | 'ask' | 'deny']>([
    ['default', bash('ls'), 'ask'],
    ['default', edit('a.ts'), 'ask'],
    ['default', read('a.ts'), 'allow'],
    ['acceptEdits', edit('a.ts'), 'allow'],
    ['acceptEdits', bash('ls'), 'ask'],
    ['acceptEdits', settingsEdit, 'ask'],
    ['plan', read('a.ts'), 'allow'],
    ['plan', edit('a.ts'), 'deny'],
    ['plan', bash('ls'), 'deny'],
    ['bypassPermissions', bash('ls'), 'allow'],
    ['bypassPermissions', settingsEdit, 'allow'],
    ['dontAsk', bash('ls'), 'deny'],
    ['dontAsk', read('a.ts'), 'allow'],
    ['dontAsk', settingsEdit, 'deny'],
  ])('%s mode, no rules: %s → %s', (mode, call, expected) => {
    expect(behavior(mode, NONE, call)).toBe(expected);
  });

  test('deny rules refuse in every mode, naming the rule and its source', () => {
    const rules = set({ deny: ['Bash(rm -rf:*)', 'Read(./.env)'], allow: ['Bash'] });
    for (const mode of ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'plan'] as const) {
      expect(behavior(mode, rules, bash('rm -rf build && ls'))).toBe('deny');
      expect(behavior(mode, rules, read('.env'))).toBe('deny');
    }
    expect(decide('bypassPermissions', rules, bash('rm -rf build && ls'), WORKDIR)).toEqual({
      behavior: 'deny',
      message:
        'Permission to use Bash with command rm -rf build && ls has been denied by rule Bash(rm -rf:*) from .claude/settings.json.',
    });
    expect(behavior('default', rules, bash('ls -la'))).toBe('allow');
  });

  test('ask rules ask even where an allow rule matches and in bypassPermissions; dontAsk refuses', () => {
    const rules = set({ ask: ['Bash(git push:*)'], allow: ['Bash(git:*)'] });
    expect(decide('default', rules, bash('git push origin main'), WORKDIR)).toEqual({
      behavior: 'ask',
      reason: 'rule Bash(git push:*) from input permissions',
      byRule: true,
    });
    expect(behavior('bypassPermissions', rules, bash('git push'))).toBe('ask');
    expect(behavior('dontAsk', rules, bash('git push'))).toBe('deny');
    expect(behavior('default', rules, bash('git status'))).toBe('allow');
    expect(behavior('dontAsk', rules, bash('git status'))).toBe('allow');
  });

  test('a PreToolUse hook: ask asks, allow skips the person but neither a rule of ask nor a deny', () => {
    const rules = set({ ask: ['Bash(git push:*)'], deny: ['Bash(rm:*)'] });
    const decided = (mode: PermissionMode, call: PlannedToolUse, hook: 'allow' | 'ask') =>
      withHookDecision(decide(mode, rules, call, WORKDIR), hook, mode, call).behavior;
    expect(decided('bypassPermissions', bash('ls'), 'ask')).toBe('ask');
    expect(decided('dontAsk', bash('ls'), 'ask')).toBe('deny');
    expect(decided('default', bash('ls'), 'allow')).toBe('allow');
    expect(decided('default', bash('git push'), 'allow')).toBe('ask');
    expect(decided('default', settingsEdit, 'allow')).toBe('ask');
    expect(decided('default', bash('rm x'), 'allow')).toBe('deny');
  });

  test('sessions recorded before the wildcards read a star in their allow rules as a word (patch allow-rule-wildcards)', () => {
    const stars = set({ allow: ['Bash(npm run *)', 'Bash(*)', 'Bash()'] });
    expect(behavior('default', stars, bash('npm run lint'))).toBe('allow');
    expect(decide('default', stars, bash('npm run lint'), WORKDIR, true).behavior).toBe('ask');
    expect(decide('default', stars, bash('npm run *'), WORKDIR, true).behavior).toBe('allow');
    expect(decide('default', stars, bash('*'), WORKDIR, true).behavior).toBe('allow');
    expect(decide('default', stars, bash('ls'), WORKDIR, true).behavior).toBe('ask');
    expect(hasWildcardStar('Bash(npm run *)')).toBe(true);
    expect(hasWildcardStar('Bash()')).toBe(true);
    expect(hasWildcardStar('Bash(npm run:*)')).toBe(false);
    expect(hasWildcardStar('mcp__tracker__*')).toBe(false);
  });

  test("the older modes decide as they did: auto never asks, ask is default's", () => {
    for (const call of [bash('ls'), edit('a.ts'), read('a.ts'), settingsEdit]) {
      expect(needsApproval('auto', [], call)).toBe(false);
      expect(needsApproval('ask', [], call)).toBe(decide('default', NONE, call, WORKDIR).behavior === 'ask');
    }
  });
});
