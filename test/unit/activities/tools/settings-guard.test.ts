/** The files whose changes only a person may approve: hooks, MCP servers, sub-agent types. */
import { join } from 'node:path';
import {
  assertSettingsChangeApproved,
  settingsApproval,
  settingsFileAt,
} from '../../../../src/activities/tools/settings-guard';
import type { ToolContext } from '../../../../src/activities/tools/tool';
import { scratchDir } from '../../../support/paths';

const workdir = scratchDir('settings-guard');

test.each([
  ['.claude/settings.json', '.claude/settings.json'],
  ['.mcp.json', '.mcp.json'],
  ['.claude/agents/reviewer.md', '.claude/agents/reviewer.md'],
  ['.claude/agents/notes/reviewer.md', undefined],
  ['.claude/agents/reviewer.txt', undefined],
  ['src/agents/reviewer.md', undefined],
])('%s is guarded: %s', (path, guarded) => {
  expect(settingsFileAt(workdir, join(workdir, path))).toBe(guarded);
});

test('a change to a sub-agent type always asks a person, and is refused when nobody approved it', () => {
  const filePath = join(workdir, '.claude/agents/fixer.md');
  expect(settingsApproval({}, { workdir, filePath }).alwaysAsk).toBe(
    'it changes .claude/agents/fixer.md, a sub-agent type whose tools later sessions grant',
  );
  const context = { workdir, approved: false } as unknown as ToolContext;
  expect(() => assertSettingsChangeApproved(context, filePath)).toThrow(
    ".claude/agents/fixer.md holds a sub-agent type (its tools and instructions), which later sessions trust, so changing it needs a person's approval",
  );
  expect(() => assertSettingsChangeApproved({ ...context, approved: true }, filePath)).not.toThrow();
});
