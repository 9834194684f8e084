import { checkAgentInput } from '../../../src/shared/input';
import {
  agentTypeOf,
  inheritedHooks,
  matchesTool,
  matchingHooks,
  matchingPromptHooks,
  mergeToolHooks,
  newHookEvents,
  skippedEventReason,
  subagentStopHooks,
  toolHooksOf,
} from '../../../src/shared/hooks';

describe("Claude Code's matcher", () => {
  test('empty, absent or * match every tool', () => {
    for (const matcher of [undefined, '', '*']) expect(matchesTool(matcher, 'Bash')).toBe(true);
  });

  test('a name, or names joined by |, match exactly those tools', () => {
    expect(matchesTool('Bash', 'Bash')).toBe(true);
    expect(matchesTool('Bash', 'BashOutput')).toBe(false);
    expect(matchesTool('Write|Edit', 'Edit')).toBe(true);
    expect(matchesTool('Write|Edit', 'Read')).toBe(false);
  });

  test('anything else is a regular expression over the name', () => {
    expect(matchesTool('mcp__github__.*', 'mcp__github__create_issue')).toBe(true);
    expect(matchesTool('mcp__github__.*', 'Bash')).toBe(false);
    expect(matchesTool('(', 'Bash')).toBe(false);
  });
});

test('the hooks a call matches: every matching group, each command once; UserPromptSubmit ignores matchers', () => {
  const hooks = toolHooksOf({
    PreToolUse: [
      { matcher: 'Bash', hooks: [{ type: 'command', command: './policy.sh', timeout: 5 }] },
      {
        matcher: '*',
        hooks: [
          { type: 'command', command: './audit.sh' },
          { type: 'command', command: './policy.sh' },
        ],
      },
    ],
    UserPromptSubmit: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './context.sh' }] }],
  })!;
  expect(matchingHooks(hooks, 'PreToolUse', 'Bash')).toEqual([
    { command: './policy.sh', timeoutMs: 5_000 },
    { command: './audit.sh' },
  ]);
  expect(matchingHooks(hooks, 'PreToolUse', 'Read')).toEqual([{ command: './audit.sh' }, { command: './policy.sh' }]);
  expect(matchingHooks(hooks, 'PostToolUse', 'Bash')).toEqual([]);
  expect(matchingHooks(hooks, 'UserPromptSubmit')).toEqual([{ command: './context.sh' }]);
});

test('no tool hooks: undefined, so sessions without them carry nothing new', () => {
  expect(toolHooksOf(undefined)).toBeUndefined();
  expect(
    toolHooksOf({ Stop: [{ hooks: [{ type: 'command', command: 'npm test' }] }], PreToolUse: [{ hooks: [] }] }),
  ).toBeUndefined();
  expect(
    mergeToolHooks(
      undefined,
      { PostToolUse: [{ hooks: [{ command: 'a' }] }] },
      { PostToolUse: [{ hooks: [{ command: 'b' }] }] },
    ),
  ).toEqual({
    PostToolUse: [{ hooks: [{ command: 'a' }] }, { hooks: [{ command: 'b' }] }],
  });
});

test("a sub-agent inherits its parent's PreToolUse and PostToolUse hooks as valid input hooks", () => {
  const parent = checkAgentInput({
    prompt: 'p',
    workdir: '/w',
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './policy.sh', timeout: 5 }] }],
      PostToolUse: [{ hooks: [{ type: 'command', command: './format.sh' }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: './context.sh' }] }],
    },
  });
  if (!parent.ok) throw new Error(parent.message);
  const hooks = inheritedHooks(parent.input.toolHooks);
  const child = checkAgentInput({ prompt: 'c', workdir: '/w', hooks });
  expect(child.ok && child.input.toolHooks).toEqual({
    PreToolUse: parent.input.toolHooks!.PreToolUse,
    PostToolUse: parent.input.toolHooks!.PostToolUse,
  });
  expect(inheritedHooks(undefined)).toBeUndefined();
});

describe('input hooks', () => {
  const base = { prompt: 'p', workdir: '/w' };

  test('tool hooks are kept by event, Stop hooks join stopHooks', () => {
    const check = checkAgentInput({
      ...base,
      stopHooks: [{ command: 'first' }],
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './deny.sh' }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'npm test', timeout: 30 }] }],
      },
    });
    expect(check.ok && check.input.toolHooks).toEqual({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ command: './deny.sh' }] }],
    });
    expect(check.ok && check.input.stopHooks).toEqual([
      { command: 'first' },
      { command: 'npm test', timeoutMs: 30_000 },
    ]);
  });

  test('matcher `*` (every tool) is accepted, though it is no regular expression', () => {
    const check = checkAgentInput({
      ...base,
      hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: './audit.sh' }] }] },
    });
    expect(check.ok && check.input.toolHooks).toEqual({
      PreToolUse: [{ matcher: '*', hooks: [{ command: './audit.sh' }] }],
    });
  });

  test('without hooks the resolved input has no toolHooks field', () => {
    const check = checkAgentInput(base);
    expect(check.ok && 'toolHooks' in check.input).toBe(false);
  });

  test.each([
    [{ SessionStart: [{ matcher: '(', hooks: [] }] }, 'hooks.SessionStart.0.matcher: must be a tool name'],
    [{ PreToolUse: [{ matcher: '(', hooks: [] }] }, 'hooks.PreToolUse.0.matcher: must be a tool name'],
    [{ PostToolUse: [{ hooks: [{ type: 'command', command: '' }] }] }, 'hooks.PostToolUse.0.hooks.0.command:'],
    [
      { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: 601 }] }] },
      'hooks.PreToolUse.0.hooks.0.timeout:',
    ],
  ])('invalid hooks are refused naming the field: %j', (hooks, message) => {
    const check = checkAgentInput({ ...base, hooks });
    expect(check.ok).toBe(false);
    expect(!check.ok && check.message).toContain(message);
  });
});

test('a matcher naming a tool by another of its names (Task for Agent) matches its calls, by the aliases their plan lists', () => {
  const hooks = toolHooksOf({
    PreToolUse: [
      { matcher: 'Task', hooks: [{ type: 'command', command: './old.sh' }] },
      { matcher: 'Agent', hooks: [{ type: 'command', command: './new.sh' }] },
      { matcher: '^Ag.*', hooks: [{ type: 'command', command: './regex.sh' }] },
    ],
  })!;
  const all = [{ command: './old.sh' }, { command: './new.sh' }, { command: './regex.sh' }];
  expect(matchingHooks(hooks, 'PreToolUse', 'Agent', ['Task'])).toEqual(all);
  expect(matchingHooks(hooks, 'PreToolUse', 'Task', ['Agent'])).toEqual(all);
  // Plans recorded before the rename list no aliases: a Task call matches what it matched then.
  expect(matchingHooks(hooks, 'PreToolUse', 'Task')).toEqual([{ command: './old.sh' }]);
});

describe("Claude Code's other events (issue 25)", () => {
  const base = { prompt: 'p', workdir: '/w' };
  const command = (text: string) => ({ type: 'command' as const, command: text });

  test('events we do not run are accepted in input and listed as skipped with a reason, never fatal', () => {
    const check = checkAgentInput({
      ...base,
      hooks: {
        ConfigChange: [{ hooks: [command('x')] }],
        WorktreeCreate: 'anything',
        SomeFutureEvent: [],
        SessionStart: [{ matcher: 'startup', hooks: [command('cat context.md')] }],
      },
    });
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.input.toolHooks).toEqual({
      SessionStart: [{ matcher: 'startup', hooks: [{ command: 'cat context.md' }] }],
    });
    expect(check.input.skippedHooks).toEqual([
      { file: 'input', path: 'hooks.ConfigChange', reason: expect.stringContaining('settings are read once') },
      { file: 'input', path: 'hooks.WorktreeCreate', reason: expect.stringContaining('worktree') },
      { file: 'input', path: 'hooks.SomeFutureEvent', reason: expect.stringContaining('not a hook event') },
    ]);
  });

  test('every event we run has no skip reason; the others have one', () => {
    expect(skippedEventReason('PreCompact')).toBeUndefined();
    expect(skippedEventReason('TeammateIdle')).toMatch(
      /^hook event not run by durable-agent: there are no agent teams/,
    );
  });

  test('the events input refused before issue 25 are what the workflow asks its patch for', () => {
    expect(newHookEvents({ hooks: { PreToolUse: [], Stop: [] } })).toEqual([]);
    expect(newHookEvents({ hooks: { SessionStart: [], ConfigChange: [] } })).toEqual(['SessionStart', 'ConfigChange']);
    expect(newHookEvents({ hooks: 'x' })).toEqual([]);
    expect(newHookEvents(null)).toEqual([]);
  });

  test("a non-tool event's matcher is over its source, trigger or agent type", () => {
    const hooks = toolHooksOf({
      SessionStart: [{ matcher: 'startup|resume', hooks: [command('./start.sh')] }],
      PreCompact: [{ matcher: 'manual', hooks: [command('./manual.sh')] }],
      SubagentStop: [{ matcher: 'Explore', hooks: [command('./check.sh')] }],
    })!;
    expect(matchingHooks(hooks, 'SessionStart', 'startup')).toEqual([{ command: './start.sh' }]);
    expect(matchingHooks(hooks, 'SessionStart', 'compact')).toEqual([]);
    expect(matchingHooks(hooks, 'PreCompact', 'auto')).toEqual([]);
    expect(subagentStopHooks(hooks, 'Explore')).toEqual([{ command: './check.sh' }]);
    expect(subagentStopHooks(hooks, 'general-purpose')).toEqual([]);
  });

  test("a sub-agent inherits its parent's call, start and stop hooks, not the session's", () => {
    const hooks = toolHooksOf({
      PostToolUseFailure: [{ hooks: [command('./failed.sh')] }],
      SubagentStart: [{ hooks: [command('./sub.sh')] }],
      SessionStart: [{ hooks: [command('./start.sh')] }],
      PreCompact: [{ hooks: [command('./compact.sh')] }],
    });
    expect(Object.keys(inheritedHooks(hooks) ?? {})).toEqual(['PostToolUseFailure', 'SubagentStart']);
  });

  test("a sub-agent's type: its input's, else its note's, else the default", () => {
    expect(agentTypeOf({ agentType: 'Explore' })).toBe('Explore');
    expect(agentTypeOf({ toolsLeftOut: { agentType: 'fixer' } })).toBe('fixer');
    expect(agentTypeOf({})).toBe('explore');
  });
});

describe('handler types', () => {
  const base = { prompt: 'p', workdir: '/w' };

  test('prompt hooks are kept beside the commands of their group; a sub-agent inherits them', () => {
    const check = checkAgentInput({
      ...base,
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: './audit.sh' },
              { type: 'prompt', prompt: 'Safe? $ARGUMENTS', timeout: 20, model: 'claude-haiku-4-5' },
            ],
          },
        ],
      },
    });
    const group = {
      matcher: 'Bash',
      hooks: [{ command: './audit.sh' }],
      prompts: [{ prompt: 'Safe? $ARGUMENTS', timeoutMs: 20_000, model: 'claude-haiku-4-5' }],
    };
    expect(check.ok && check.input.toolHooks).toEqual({ PreToolUse: [group] });
    expect(matchingPromptHooks({ PreToolUse: [group] }, 'PreToolUse', 'Bash')).toEqual(group.prompts);
    expect(matchingPromptHooks({ PreToolUse: [group] }, 'PreToolUse', 'Read')).toEqual([]);
    const inherited = inheritedHooks({ PreToolUse: [group] });
    expect(checkAgentInput({ ...base, hooks: inherited }).ok).toBe(true);
  });

  test('agent, http and mcp_tool hooks are accepted and noted as not run; Stop prompt hooks run', () => {
    const check = checkAgentInput({
      ...base,
      hooks: {
        PostToolUse: [
          {
            hooks: [
              { type: 'http', url: 'https://audit.example' },
              { type: 'command', command: 'x' },
            ],
          },
        ],
        Stop: [
          {
            hooks: [
              { type: 'agent', prompt: 'Verify' },
              { type: 'prompt', prompt: 'Done?' },
            ],
          },
        ],
      },
    });
    expect(check.ok && check.input.skippedHooks?.map(({ file, path }) => `${file}:${path}`)).toEqual([
      'input:hooks.PostToolUse.0.hooks.0',
      'input:hooks.Stop.0.hooks.0',
    ]);
    expect(check.ok && check.input.stopHooks).toEqual([]);
    expect(check.ok && check.input.toolHooks).toEqual({
      PostToolUse: [{ hooks: [{ command: 'x' }] }],
      Stop: [{ hooks: [], prompts: [{ prompt: 'Done?' }] }],
    });
  });
});
