/**
 * The corpus of real-world `.claude/settings.json` files (test/fixtures/claude-settings, sources
 * in its SOURCES.md): every one is read into runnable hooks and a list of skipped entries, as a
 * session reads it from a repository; none throws.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRepoHooks } from '../../../../src/activities/hooks/settings';
import { Workdir } from '../../../../src/workdir/workdir';

const CORPUS = join(__dirname, '../../../fixtures/claude-settings');
const corpusFiles = readdirSync(CORPUS).filter((name) => name.endsWith('.json'));

async function readAsRepository(fixture: string) {
  const dir = mkdtempSync(join(tmpdir(), 'settings-corpus-'));
  mkdirSync(join(dir, '.claude'));
  writeFileSync(join(dir, '.claude/settings.json'), readFileSync(join(CORPUS, fixture)));
  return Workdir.using(dir, readRepoHooks);
}

test('the corpus holds at least 10 real-world settings files, each named in SOURCES.md', () => {
  expect(corpusFiles.length).toBeGreaterThanOrEqual(10);
  const sources = readFileSync(join(CORPUS, 'SOURCES.md'), 'utf8');
  for (const file of corpusFiles) expect(sources).toContain(`| \`${file}\` |`);
});

test.each(corpusFiles)('%s is read entry by entry: nothing throws, each skip has a reason', async (fixture) => {
  const hooks = await readAsRepository(fixture);
  expect(hooks.unreadable).toEqual([]);
  for (const skipped of hooks.skipped) {
    expect(skipped).toEqual({
      file: '.claude/settings.json',
      path: expect.stringMatching(/^\S+$/),
      reason: expect.any(String),
    });
  }
  // Whatever is kept is runnable: a command, and a timeout within our limit.
  const toolHooks = Object.values(hooks.toolHooks ?? {}).flatMap((groups) => groups.flatMap((group) => group.hooks));
  const commands = [...hooks.hooks, ...toolHooks];
  for (const hook of commands) {
    expect(hook.command.trim()).not.toBe('');
    expect(hook.timeoutMs ?? 0).toBeLessThanOrEqual(600_000);
  }
});

test('async fields and events we do not run are skipped; the command hooks (SessionStart, SubagentStart too) and the prompt-type Stop hook run', async () => {
  const hooks = await readAsRepository('cautiouskurns-game-template.json');
  expect(hooks.hooks).toEqual([]);
  const tenSeconds = expect.objectContaining({ timeoutMs: 10_000 });
  expect(hooks.toolHooks?.PreToolUse).toEqual([{ matcher: 'Write', hooks: Array(4).fill(tenSeconds) }]);
  const postToolUse = hooks.toolHooks?.PostToolUse?.map((group) => [group.matcher, group.hooks.length]);
  expect(postToolUse).toEqual([
    ['Read', 1],
    ['Edit|Write', 4],
    ['Bash', 1],
  ]);
  expect(hooks.skipped.map(({ path, reason }) => `${path}: ${reason}`)).toEqual([
    'hooks.PostToolUse.1.hooks.0.async: a field durable-agent does not use (ignored)',
    'hooks.PostToolUse.1.hooks.1.async: a field durable-agent does not use (ignored)',
    'hooks.PostToolUse.1.hooks.2.async: a field durable-agent does not use (ignored)',
    'hooks.PostToolUse.2.hooks.0.async: a field durable-agent does not use (ignored)',
  ]);
  expect(hooks.toolHooks?.SessionStart).toEqual([
    {
      matcher: 'startup|resume',
      hooks: [{ command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/inject-sprint-context.sh', timeoutMs: 10_000 }],
    },
  ]);
  expect(hooks.toolHooks?.SubagentStart).toHaveLength(1);
  expect(hooks.toolHooks?.Stop).toEqual([
    { hooks: [], prompts: [{ prompt: expect.stringContaining('workflow compliance checker'), timeoutMs: 30_000 }] },
  ]);
  expect(hooks.found).toEqual(['.claude/settings.json (13 tool hooks, 4 hook entries that cannot run)']);
});

const PROMPT_HOOK = 'uv run .claude/hooks/user_prompt_submit.py --log-only --store-last-prompt --name-agent';

test('statusLine and permissions are skipped; Stop, tool, UserPromptSubmit and the other events’ hooks run', async () => {
  const hooks = await readAsRepository('disler-claude-code-hooks-mastery.json');
  expect(hooks.hooks).toEqual([{ command: 'uv run .claude/hooks/stop.py --chat' }]);
  expect(hooks.toolHooks).toMatchObject({
    PreToolUse: [{ matcher: '', hooks: [{ command: 'uv run .claude/hooks/pre_tool_use.py' }] }],
    PostToolUse: [{ matcher: '', hooks: [{ command: 'uv run .claude/hooks/post_tool_use.py' }] }],
    UserPromptSubmit: [{ hooks: [{ command: PROMPT_HOOK }] }],
  });
  expect(Object.keys(hooks.toolHooks ?? {}).sort()).toEqual(
    [
      'Notification',
      'PostToolUse',
      'PreCompact',
      'PreToolUse',
      'SessionStart',
      'SubagentStop',
      'UserPromptSubmit',
    ].sort(),
  );
  expect(hooks.skipped.map((skipped) => skipped.path)).toEqual(['statusLine']);
});

test('a timeout over our limit runs with the limit, saying so; a list as matcher skips its group', async () => {
  const course = await readAsRepository('solugenai-claude-code-course.json');
  expect(course.toolHooks?.PostToolUse?.map((group) => group.hooks[0]?.timeoutMs)).toEqual([600_000, 600_000, 600_000]);
  expect(course.skipped).toContainEqual({
    file: '.claude/settings.json',
    path: 'hooks.PostToolUse.0.hooks.0.timeout',
    reason: 'over 600 s: the hook runs with 600 s',
  });

  const listMatcher = await readAsRepository('uc5454-digital-gorilla-quest-hook-cave.json');
  const bashHook = { command: "echo 'コマンド実行前！'" };
  expect(listMatcher.toolHooks).toEqual({ PreToolUse: [{ matcher: 'Bash', hooks: [bashHook] }] });
  const reason = expect.stringMatching(/^matcher must be a tool name/);
  expect(listMatcher.skipped).toEqual([{ file: '.claude/settings.json', path: 'hooks.PostToolUse.0.matcher', reason }]);
});
