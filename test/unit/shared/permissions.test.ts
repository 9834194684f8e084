import { checkAgentInput } from '../../../src/shared/input';
import { parseRule, permissionRuleSet, ruleProblem } from '../../../src/shared/permissions';

test("rules in Claude Code's syntax are parsed; parentheses in the content are escaped", () => {
  expect(parseRule('Bash')).toEqual({ tool: 'Bash' });
  expect(parseRule('Bash(*)')).toEqual({ tool: 'Bash' });
  expect(parseRule('Bash()')).toEqual({ tool: 'Bash' });
  expect(parseRule('Bash(npm run lint:*)')).toEqual({ tool: 'Bash', content: 'npm run lint:*' });
  expect(parseRule('Bash(python -c "print\\(1\\)")')).toEqual({ tool: 'Bash', content: 'python -c "print(1)"' });
  expect(parseRule('mcp__github__create_issue')).toEqual({ tool: 'mcp__github__create_issue' });
  expect(parseRule('bash rm')).toBeUndefined();
});

test.each([
  ['Bash(npm run lint:*)', undefined],
  ['Read(./.env)', undefined],
  ['Edit(src/**)', undefined],
  ['WebFetch(domain:example.com)', undefined],
  ['Agent(Explore)', undefined],
  ['mcp__server', undefined],
  ['mcp__server__tool', undefined],
  ['Bash(npm:* test)', 'the :* prefix wildcard goes at the end only (Bash(npm run:*))'],
  ['mcp__server(x)', 'MCP rules name a server or tool without parentheses (mcp__server, mcp__server__tool)'],
  ['Bash(unclosed', expect.stringContaining('must look like')],
  ['', expect.stringContaining('must look like')],
])('%s: %s', (rule, problem) => {
  expect(ruleProblem(rule)).toEqual(problem);
});

test('input permissions: rules checked with clear errors, additionalDirectories refused', () => {
  const base = { prompt: 'p', workdir: '/abs/repo' };
  const ok = checkAgentInput({ ...base, permissions: { deny: ['Bash(rm -rf:*)'], defaultMode: 'acceptEdits' } });
  expect(ok).toMatchObject({
    ok: true,
    input: { permissionMode: 'acceptEdits', permissions: { deny: ['Bash(rm -rf:*)'] } },
  });
  expect(ok.ok && ok.input.permissionModeDefaulted).toBeFalsy();
  expect(checkAgentInput({ ...base, permissions: { deny: ['rm -rf'] } })).toEqual({
    ok: false,
    message: expect.stringContaining('permissions.deny.0: must look like Bash(npm run lint:*)'),
  });
  expect(checkAgentInput({ ...base, permissions: { additionalDirectories: ['/tmp'] } })).toEqual({
    ok: false,
    message: expect.stringContaining('permissions.additionalDirectories: not supported'),
  });
  expect(checkAgentInput({ ...base, permissions: { allow: [], additionalDirectories: [] } }).ok).toBe(true);
  // The input's mode wins over its defaultMode.
  expect(checkAgentInput({ ...base, permissionMode: 'plan', permissions: { defaultMode: 'dontAsk' } })).toMatchObject({
    input: { permissionMode: 'plan' },
  });
  expect(checkAgentInput({ ...base, permissionMode: 'never' }).ok).toBe(false);
});

test('every source together, each rule with where it came from', () => {
  expect(
    permissionRuleSet(
      { allowRules: ['Bash(ls)'], permissions: { deny: ['Read(./.env)'], ask: ['Bash(git push:*)'] } },
      [{ file: '.claude/settings.json', deny: ['Bash(rm:*)'], allow: ['Edit'] }],
    ),
  ).toEqual({
    allow: [
      { rule: 'Bash(ls)', source: 'input allowRules' },
      { rule: 'Edit', source: '.claude/settings.json' },
    ],
    deny: [
      { rule: 'Read(./.env)', source: 'input permissions' },
      { rule: 'Bash(rm:*)', source: '.claude/settings.json' },
    ],
    ask: [{ rule: 'Bash(git push:*)', source: 'input permissions' }],
  });
});
