import type { PlannedToolUse, ToolRules } from '../../../../src/shared/activity-io';
import type { SourcedRule } from '../../../../src/shared/permissions';
import {
  allowingRule,
  wildcardCommandMatches,
  firstMatchingRule,
  pathMatches,
  wildcardMatches,
} from '../../../../src/workflows/core/permission-rules';

const WORKDIR = '/work/repo';

const planned = (name: string, rules: ToolRules, filePath?: string): PlannedToolUse => ({
  id: 'toolu_1',
  name,
  input: {},
  plan: { ok: true, concurrencySafe: false, summary: name, rules, ...(filePath ? { filePath } : {}) },
});

/** A Bash call as the model activity plans it: its subject and parsed commands. */
const bash = (command: string, commands?: string[][], notMatchable?: string) =>
  planned('Bash', {
    needsApproval: true,
    subject: command,
    ...(commands ? { commands } : {}),
    ...(notMatchable ? { notMatchable } : {}),
  });
const words = (line: string) => line.split(/\s*(?:&&|\|\||;|\|)\s*/).map((part) => part.split(' '));
const parsedBash = (command: string) => bash(command, words(command));
const file = (name: string, path: string, extra: ToolRules = {}) =>
  planned(name, { rulePath: `${WORKDIR}/${path}`, ...extra }, `${WORKDIR}/${path}`);
const rules = (...written: string[]): SourcedRule[] => written.map((rule) => ({ rule, source: 'test' }));
const matches = (rule: string, call: PlannedToolUse) => firstMatchingRule(rules(rule), call, WORKDIR) !== undefined;

describe("Bash rules, Claude Code's examples", () => {
  test.each([
    // [rule content, command words, matches]
    ['npm run build', 'npm run build', true],
    ['npm run build', 'npm run build --watch', false],
    ['npm run test:*', 'npm run test', true],
    ['npm run test:*', 'npm run test -- --watch', true],
    ['npm run test:*', 'npm run testing', false],
    ['npm run lint:*', 'npm run lint src', true],
    ['npm run *', 'npm run lint', true],
    ['npm run *', 'npm run', true],
    ['npm run *', 'npm install', false],
    ['ls *', 'ls -la', true],
    ['ls *', 'ls', true],
    ['ls *', 'lsof', false],
    ['ls*', 'lsof', true],
    ['* install', 'npm install', true],
    ['git * main', 'git push origin main', true],
    ['git * main', 'git push origin dev', false],
    ['rm -rf:*', 'rm -rf build', true],
  ])('Bash(%s) against `%s`: %s', (content, command, expected) => {
    expect(wildcardCommandMatches(content, command.split(' '))).toBe(expected);
  });

  test('a deny rule refuses a line when any of its commands matches, through wrappers', () => {
    expect(matches('Bash(rm -rf:*)', parsedBash('rm -rf build && ls'))).toBe(true);
    expect(matches('Bash(rm -rf:*)', parsedBash('ls && rm -rf build'))).toBe(true);
    expect(matches('Bash(rm:*)', parsedBash('sudo -u root rm x'))).toBe(true);
    expect(matches('Bash(rm:*)', parsedBash('timeout 10 rm x'))).toBe(true);
    expect(matches('Bash(rm:*)', bash('FOO=1 rm x', undefined, 'it assigns a variable'))).toBe(true);
    // The parser gave up on a loop: the line cut at its operators still shows the rm.
    expect(matches('Bash(rm:*)', bash('for f in *; do rm "$f"; done', undefined, 'it uses "for"'))).toBe(true);
    expect(matches('Bash(rm:*)', bash('echo $(rm -rf /)', undefined, 'it runs $(…)'))).toBe(true);
    expect(matches('Bash(rm:*)', parsedBash('ls -la'))).toBe(false);
    expect(matches('Bash', parsedBash('ls'))).toBe(true);
    expect(matches('Bash(*)', parsedBash('ls'))).toBe(true);
  });

  test('an allow rule approves a line only when every command is allowed', () => {
    expect(allowingRule(rules('Bash(npm test:*)'), parsedBash('npm test && rm -rf /'), WORKDIR)).toBeUndefined();
    expect(allowingRule(rules('Bash(npm test:*)', 'Bash(ls)'), parsedBash('npm test && ls'), WORKDIR)).toBeDefined();
    expect(allowingRule(rules('Bash(npm run *)'), parsedBash('npm run lint'), WORKDIR)).toBeDefined();
    // Only a bare rule approves what cannot be matched.
    expect(allowingRule(rules('Bash(echo:*)'), bash('echo $(id)', undefined, '$(…)'), WORKDIR)).toBeUndefined();
    expect(allowingRule(rules('Bash'), bash('echo $(id)', undefined, '$(…)'), WORKDIR)).toBeDefined();
    // A settings file: no rule approves it.
    const settings = file('Edit', '.claude/settings.json', { needsApproval: true, alwaysAsk: 'a settings file' });
    expect(allowingRule(rules('Edit'), settings, WORKDIR)).toBeUndefined();
  });
});

describe('Read and Edit rules: gitignore-style paths', () => {
  test.each([
    // [pattern, path under the workdir, matches]
    ['./.env', '.env', true],
    ['./.env', 'config/.env', false],
    ['.env', 'config/.env', true],
    ['/.env', '.env', true],
    ['*.pem', 'keys/server.pem', true],
    ['src/**', 'src/a/b.ts', true],
    ['src/**', 'lib/src/a.ts', false],
    ['src/**/*.ts', 'src/a/b.ts', true],
    ['src/**/*.ts', 'src/b.ts', true],
    ['src/*.ts', 'src/a/b.ts', false],
    ['secrets', 'secrets/api/key.txt', true],
    ['secrets/', 'secrets/key.txt', true],
    ['secrets/', 'secrets', false],
    ['docs/**', 'docs.md', false],
    ['~/.zshrc', '.zshrc', false],
    ['**', 'anything/at/all', true],
  ])('%s against %s: %s', (pattern, path, expected) => {
    expect(pathMatches(pattern, `${WORKDIR}/${path}`, WORKDIR)).toBe(expected);
  });

  test('// is the file system root', () => {
    expect(pathMatches('//work/repo/.env', `${WORKDIR}/.env`, WORKDIR)).toBe(true);
    expect(pathMatches('//tmp/**', `${WORKDIR}/.env`, WORKDIR)).toBe(false);
  });

  test('Edit rules cover every tool that edits files, Read rules the ones that read', () => {
    const write = file('Write', 'src/a.ts', { needsApproval: true, editsFiles: true, ruleNames: ['Edit'] });
    expect(matches('Edit(src/**)', write)).toBe(true);
    expect(matches('Write(src/**)', write)).toBe(true);
    expect(matches('Read(src/**)', write)).toBe(false);
    const grep = file('Grep', '.env', { ruleNames: ['Read'] });
    expect(matches('Read(./.env)', grep)).toBe(true);
    expect(matches('Read(./.env)', file('Read', '.env'))).toBe(true);
    expect(matches('Read(./.env)', file('Read', '.env.example'))).toBe(false);
  });
});

describe('other rules', () => {
  const agent = (type: string, name = 'Agent') =>
    planned(name, { subAgent: true, ruleNames: ['Agent', 'Task'], ruleSpecifier: type });
  const mcp = planned('mcp__github__create_issue', {
    needsApproval: true,
    subject: '',
    mcp: { server: 'github', tool: 'create_issue' },
    allowedBy: ['mcp__github', 'mcp__github__*'],
  });

  test('Agent(type) and Task(type) match the sub-agent tool by either name', () => {
    expect(matches('Agent(Explore)', agent('Explore'))).toBe(true);
    expect(matches('Task(Explore)', agent('Explore'))).toBe(true);
    expect(matches('Agent(Explore)', agent('Explore', 'Task'))).toBe(true);
    expect(matches('Agent(Explore)', agent('general-purpose'))).toBe(false);
    expect(matches('Agent', agent('general-purpose'))).toBe(true);
  });

  test('mcp__server, mcp__server__* and mcp__server__tool', () => {
    expect(matches('mcp__github', mcp)).toBe(true);
    expect(matches('mcp__github__*', mcp)).toBe(true);
    expect(matches('mcp__github__create_issue', mcp)).toBe(true);
    expect(matches('mcp__github__list_issues', mcp)).toBe(false);
    expect(matches('mcp__git', mcp)).toBe(false);
  });

  test('WebFetch(domain:…) matches the specifier, with wildcards', () => {
    const fetch = (host: string) => planned('WebFetch', { needsApproval: true, ruleSpecifier: `domain:${host}` });
    expect(matches('WebFetch(domain:example.com)', fetch('example.com'))).toBe(true);
    expect(matches('WebFetch(domain:example.com)', fetch('api.example.com'))).toBe(false);
    expect(matches('WebFetch(domain:*.example.com)', fetch('api.example.com'))).toBe(true);
  });

  test('the wildcard escapes', () => {
    expect(wildcardMatches('echo \\*', 'echo *')).toBe(true);
    expect(wildcardMatches('echo \\*', 'echo x')).toBe(false);
    expect(wildcardMatches('a.b *', 'axb c')).toBe(false);
  });
});
