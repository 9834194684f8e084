/** `.claude/agents/*.md` as Claude Code writes them. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentFile, readRepoAgents } from '../../../../src/activities/session/agent-files';
import { Workdir } from '../../../../src/workdir/workdir';
import { scratchDir } from '../../../support/paths';

test('front matter gives name, description, tools (a list or a comma-separated string) and model; the body is the prompt', () => {
  expect(
    parseAgentFile(
      '---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep, WebFetch\nmodel: haiku\n---\nYou review.\n',
      'f.md',
    ),
  ).toEqual({
    name: 'reviewer',
    description: 'Reviews diffs',
    prompt: 'You review.',
    tools: ['Read', 'Grep', 'WebFetch'],
    model: 'haiku',
    source: 'f.md',
  });
  expect(parseAgentFile('---\nname: fixer\ndescription: Fixes\ntools: [Read, Edit]\n---\nFix.', 'g.md')).toMatchObject({
    tools: ['Read', 'Edit'],
  });
});

test("Claude Code's other fields: disallowedTools, maxTurns, permissionMode, initialPrompt and isolation are read; the rest is ignored", () => {
  const text = [
    '---',
    'name: careful',
    'description: Careful',
    'disallowedTools: Bash, Write',
    'maxTurns: 5',
    'permissionMode: plan',
    'initialPrompt: Read the README first.',
    'isolation: worktree',
    'skills: [review]',
    'mcpServers: [github]',
    'effort: high',
    'memory: project',
    'background: false',
    'color: blue',
    '---',
    'Be careful.',
  ].join('\n');
  expect(parseAgentFile(text, 'c.md')).toEqual({
    name: 'careful',
    description: 'Careful',
    prompt: 'Be careful.',
    disallowedTools: ['Bash', 'Write'],
    maxTurns: 5,
    permissionMode: 'plan',
    initialPrompt: 'Read the README first.',
    isolation: 'worktree',
    source: 'c.md',
  });
  expect(parseAgentFile('---\nname: x\ndescription: d\nisolation: remote\n---\np', 'f.md')).toBe(
    'isolation: worktree (or none)',
  );
  expect(parseAgentFile('---\nname: x\ndescription: d\nmaxTurns: 0\n---\np', 'f.md')).toBe(
    'maxTurns: a positive whole number',
  );
  expect(parseAgentFile('---\nname: x\ndescription: d\npermissionMode: yolo\n---\np', 'f.md')).toMatch(
    /^permissionMode: one of default, /,
  );
});

test('a file that defines no usable type says why', () => {
  expect(parseAgentFile('no front matter', 'f.md')).toBe('no front matter (--- name, description … ---)');
  expect(parseAgentFile('---\nname: Bad Name\ndescription: d\n---\np', 'f.md')).toBe(
    'name: lowercase letters, digits, - and _ required',
  );
  expect(parseAgentFile('---\nname: ok\n---\np', 'f.md')).toBe('description: required');
  expect(parseAgentFile('---\nname: ok\ndescription: d\n---\n', 'f.md')).toBe('no instructions below the front matter');
  expect(parseAgentFile('---\nname: [unclosed\n---\np', 'f.md')).toBe('its front matter is not valid YAML');
});

test('reads every .md of .claude/agents, in order, and lists the problems', async () => {
  const workdir = scratchDir('agents');
  mkdirSync(join(workdir, '.claude', 'agents'), { recursive: true });
  writeFileSync(join(workdir, '.claude', 'agents', 'b.md'), '---\nname: b\ndescription: B\n---\nDo b.');
  writeFileSync(join(workdir, '.claude', 'agents', 'a.md'), 'broken');
  writeFileSync(join(workdir, '.claude', 'agents', 'notes.txt'), 'ignored');
  const found = await Workdir.using(workdir, readRepoAgents);
  expect(found.files).toEqual(['.claude/agents/a.md', '.claude/agents/b.md']);
  expect(found.types.map((type) => type.name)).toEqual(['b']);
  expect(found.problems).toEqual(['.claude/agents/a.md: no front matter (--- name, description … ---)']);
  expect(await Workdir.using(scratchDir('no-agents'), readRepoAgents)).toEqual({ types: [], files: [], problems: [] });
});
