import type { PlannedToolUse } from '../../../../src/shared/activity-io';
import { matchesAllowRule, needsApproval } from '../../../../src/workflows/core/approval-rules';

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
