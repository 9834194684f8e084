/** What a sub-agent inherits from its parent, what its type changes, and that it never exceeds its parent. */
import { TOOL_NAMES } from '../../../../src/shared/tool-names';
import { checkAgentInput } from '../../../../src/shared/input';
import { type AgentResult } from '../../../../src/shared/contract';
import { agentTypes } from '../../../../src/shared/sub-agents';
import { parseAgentFile } from '../../../../src/activities/session/agent-files';
import {
  inheritedTools,
  subAgentInput,
  subAgentMaxTurns,
  subAgentPermissionMode,
  subAgentTools,
  subAgentWorkflowId,
  toolsLeftOutNote,
} from '../../../../src/workflows/core/sub-agent-input';
import { subAgentResult } from '../../../../src/workflows/turn/sub-agents';

function parentInput(extra: Record<string, unknown> = {}) {
  const check = checkAgentInput({
    prompt: 'refactor',
    workdir: '/abs/repo',
    permissionMode: 'ask',
    allowRules: ['Bash(npm test)'],
    sandboxEnv: { NODE_ENV: 'test' },
    network: false,
    trustRepoHooks: true,
    stopHooks: [{ command: 'npm test' }],
    ...extra,
  });
  if (!check.ok) throw new Error(check.message);
  return check.input;
}

const view = { workflowId: 'parent-1', workdir: '/real/repo', host: 'host-a', model: 'claude-opus-5-5' };
const BOUND = { boundByParent: true };

test('by default: a read-only explorer with the parent workdir, host, model, permissions and sandbox, without stop hooks', () => {
  const start = subAgentInput(
    parentInput(),
    view,
    'toolu_1',
    { description: 'find callers', prompt: 'Find callers of parse' },
    agentTypes(undefined),
    BOUND,
  );
  expect(start.ok).toBe(true);
  if (!start.ok) return;
  expect(start.type.name).toBe('explore');
  expect(start.input).toMatchObject({
    prompt: 'Find callers of parse',
    workdir: '/real/repo',
    host: 'host-a',
    model: 'claude-opus-5-5',
    allowedTools: ['Read', 'Glob', 'Grep'],
    permissionMode: 'ask',
    allowRules: ['Bash(npm test)'],
    sandboxEnv: { NODE_ENV: 'test' },
    network: false,
    trustRepoHooks: true,
    stopHooks: [],
    interactive: false,
    parentSession: { workflowId: 'parent-1', toolUseId: 'toolu_1', description: 'find callers' },
  });
  // What the child is started with is valid input (it goes through the same check).
  const checked = checkAgentInput(start.input);
  expect(checked.ok && checked.input.allowedTools).toEqual(['Read', 'Glob', 'Grep']);
});

test("a type's tools, prompt and model alias replace the defaults; unknown types are an error naming the known ones", () => {
  const parent = parentInput({
    agents: {
      fixer: { description: 'Fixes', prompt: 'You fix bugs.', tools: ['Read', 'Edit', 'Bash'], model: 'haiku' },
    },
  });
  const types = agentTypes(parent.agents, [
    { name: 'reviewer', description: 'Reviews', prompt: 'Review.', source: '.claude/agents/reviewer.md' },
  ]);
  const fixer = subAgentInput(
    parent,
    view,
    'toolu_2',
    { description: 'fix', prompt: 'Fix it', subagent_type: 'fixer' },
    types,
    BOUND,
  );
  expect(fixer.ok && fixer.input).toMatchObject({
    allowedTools: ['Read', 'Edit', 'Bash'],
    systemPrompt: 'You fix bugs.',
    model: 'claude-haiku-5-5',
  });
  const unknown = subAgentInput(
    parent,
    view,
    'toolu_3',
    { description: 'x', prompt: 'x', subagent_type: 'nope' },
    types,
    BOUND,
  );
  expect(unknown).toEqual({ ok: false, error: 'No agent type "nope". Agent types: explore, fixer, reviewer.' });
});

test("a parent's window and its bound on rate-limit waits go with the sub-agent (issue 26); unset, none is added", () => {
  const start = (extra: Record<string, unknown>) => {
    const started = subAgentInput(
      parentInput(extra),
      view,
      'toolu_1',
      { description: 'd', prompt: 'p' },
      agentTypes(undefined),
      BOUND,
    );
    if (!started.ok) throw new Error(started.error);
    return started.input;
  };
  expect(start({ contextWindowTokens: 32_000, maxRateLimitWaitMs: 600_000 })).toMatchObject({
    contextWindowTokens: 32_000,
    maxRateLimitWaitMs: 600_000,
  });
  expect(start({})).not.toHaveProperty('maxRateLimitWaitMs');
  expect(start({ maxRateLimitWaitMs: 0 })).toMatchObject({ maxRateLimitWaitMs: 0 });
});

test("the input's types win a name over the repository's", () => {
  const types = agentTypes({ reviewer: { description: 'Input reviewer', prompt: 'p' } }, [
    { name: 'reviewer', description: 'Repo reviewer', prompt: 'q', source: 'repo' },
  ]);
  expect(types.find((type) => type.name === 'reviewer')?.description).toBe('Input reviewer');
});

test('the child workflow id is derived from the parent and the call', () => {
  expect(subAgentWorkflowId('parent-1', 'toolu_9')).toBe('parent-1-task-toolu_9');
});

test("the tool result is the sub-agent's final text; a sub-agent that did not complete is an error saying why", () => {
  const call = { id: 'toolu_1', name: 'Task' };
  const result = (reason: AgentResult['reason'], finalText: string, error?: string) => ({
    reason,
    finalText,
    turnCount: 2,
    usage: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    ...(error ? { error } : {}),
  });
  expect(subAgentResult(call, 'explore', 'c', result('completed', 'Found 3 callers.'))).toEqual({
    toolUseId: 'toolu_1',
    isError: false,
    content: { text: 'Found 3 callers.' },
    toolName: 'Task',
  });
  const stopped = subAgentResult(call, 'explore', 'c', result('max_turns', 'partial', 'Reached maxTurns'));
  expect(stopped.isError).toBe(true);
  expect(JSON.stringify(stopped.content)).toContain(
    'stopped before it finished: max_turns (Reached maxTurns) after 2 turns. Its last message:\\npartial',
  );
  const long = subAgentResult(call, 'explore', 'c', result('completed', 'x'.repeat(50_000)));
  expect(JSON.stringify(long.content)).toContain("characters of the sub-agent's answer cut");
});

test("the parent's PreToolUse and PostToolUse hooks go with the sub-agent; its Stop and UserPromptSubmit hooks do not", () => {
  const parent = parentInput({
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './policy.sh', timeout: 5 }] }],
      PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'prettier --write' }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: './screen.sh' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'npm test' }] }],
    },
  });
  const start = subAgentInput(parent, view, 'toolu_h', { description: 'd', prompt: 'p' }, agentTypes(undefined), BOUND);
  expect(start.ok && start.input.hooks).toEqual({
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './policy.sh', timeout: 5 }] }],
    PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'prettier --write' }] }],
  });
  expect(start.ok && start.input.stopHooks).toEqual([]);
  expect(start.ok && checkAgentInput(start.input).ok).toBe(true);
});

test("the call's model (Claude Code's alias) wins over the type's and the parent's", () => {
  const parent = parentInput({ agents: { fixer: { description: 'Fixes', prompt: 'You fix bugs.', model: 'haiku' } } });
  const types = agentTypes(parent.agents);
  const task = { description: 'fix', prompt: 'Fix it' };
  const modelOf = (extra: Record<string, unknown>) => {
    const start = subAgentInput(parent, view, 'toolu_1', { ...task, ...extra }, types, BOUND);
    return start.ok ? start.input.model : start.error;
  };
  expect(modelOf({ subagent_type: 'fixer' })).toBe('claude-haiku-5-5');
  expect(modelOf({ subagent_type: 'fixer', model: 'opus' })).toBe('claude-opus-5-5');
  expect(modelOf({ model: 'sonnet' })).toBe('claude-sonnet-5-5');
  expect(modelOf({ model: 'fable' })).toBe('claude-fable-5-2');
  expect(modelOf({})).toBe('claude-opus-5-5'); // the parent's
});

describe('a sub-agent never exceeds its parent (issue 22)', () => {
  const readOnlyParent = (extra: Record<string, unknown> = {}) =>
    parentInput({ allowedTools: ['Read', 'Glob', 'Grep', 'Task'], ...extra });

  test("its tools are those its type asks for that the parent has, in the type's order; Task only when both allow it", () => {
    expect(subAgentTools(['Bash', 'Read', 'Write', 'Grep'], ['Read', 'Glob', 'Grep', 'Task'])).toEqual({
      tools: ['Read', 'Grep'],
      leftOut: ['Bash', 'Write'],
    });
    expect(subAgentTools(['Read', 'Task'], ['Read', 'Task'])).toEqual({ tools: ['Read', 'Task'], leftOut: [] });
    expect(subAgentTools(['Read'], ['Read', 'Task'])).toEqual({ tools: ['Read'], leftOut: [] }); // the parent's Task is not handed down
    expect(subAgentTools(['Read', 'Task'], ['Read', 'Bash'])).toEqual({ tools: ['Read'], leftOut: ['Task'] });
    expect(subAgentTools(['Bash', 'Bash', 'Read'], ['Read'])).toEqual({ tools: ['Read'], leftOut: ['Bash'] });
    expect(subAgentTools([], ['Read'])).toEqual({ tools: [], leftOut: [] });
  });

  test('Agent and its old name Task are one tool: a type asking for one gets it when the parent has the other', () => {
    expect(subAgentTools(['Read', 'Agent'], ['Read', 'Task'])).toEqual({ tools: ['Read', 'Agent'], leftOut: [] });
    expect(subAgentTools(['Read', 'Task'], ['Read', 'Agent'])).toEqual({ tools: ['Read', 'Task'], leftOut: [] });
    expect(subAgentTools(['Agent'], ['Read'])).toEqual({ tools: [], leftOut: ['Agent'] });
  });

  test('an input type listing Bash and Write under a read-only parent: cut down to what the parent has, and said so', () => {
    const parent = readOnlyParent({
      agents: { fixer: { description: 'Fixes', prompt: 'You fix bugs.', tools: ['Read', 'Bash', 'Write', 'Task'] } },
    });
    const start = subAgentInput(
      parent,
      view,
      'toolu_f',
      { description: 'fix', prompt: 'Fix it', subagent_type: 'fixer' },
      agentTypes(parent.agents),
      BOUND,
    );
    expect(start.ok).toBe(true);
    if (!start.ok) return;
    expect(start.toolsLeftOut).toEqual(['Bash', 'Write']);
    expect(start.input.allowedTools).toEqual(['Read', 'Task']);
    expect(start.input.parentSession).toEqual({
      workflowId: 'parent-1',
      toolUseId: 'toolu_f',
      description: 'fix',
      agentType: 'fixer',
      toolsLeftOut: { agentType: 'fixer', tools: ['Bash', 'Write'] },
    });
    // The child's own check keeps it so, and its Task calls start grandchildren bounded by it in turn.
    const checked = checkAgentInput(start.input);
    expect(checked.ok && checked.input.allowedTools).toEqual(['Read', 'Task']);
    expect(checked.ok && checked.input.parentSession?.toolsLeftOut).toEqual({
      agentType: 'fixer',
      tools: ['Bash', 'Write'],
    });
  });

  test("a trusted repository's type asking for Bash gets no Bash, and its front matter cannot loosen the mode", () => {
    const repoType = parseAgentFile(
      '---\nname: shell\ndescription: Runs things\ntools: Bash, Read\npermissionMode: bypassPermissions\n---\nRun the tests.\n',
      '.claude/agents/shell.md',
    );
    if (typeof repoType === 'string') throw new Error(repoType);
    const start = subAgentInput(
      readOnlyParent(),
      view,
      'toolu_s',
      { description: 'run', prompt: 'Run the tests', subagent_type: 'shell' },
      agentTypes(undefined, [repoType]),
      BOUND,
    );
    expect(start.ok && start.input).toMatchObject({
      allowedTools: ['Read'],
      permissionMode: 'ask',
      parentSession: { toolsLeftOut: { agentType: 'shell', tools: ['Bash'] } },
    });
  });

  test("the default type's tools are cut too when the parent lacks some of them", () => {
    const start = subAgentInput(
      parentInput({ allowedTools: ['Read', 'Task'] }),
      view,
      'toolu_e',
      { description: 'look', prompt: 'Look' },
      agentTypes(undefined),
      BOUND,
    );
    expect(start.ok && [start.input.allowedTools, start.toolsLeftOut]).toEqual([['Read'], ['Glob', 'Grep']]);
  });

  test('nothing cut: the input is what it was before the bound (no note, no extra field)', () => {
    const parent = parentInput({ agents: { fixer: { description: 'Fixes', prompt: 'p', tools: ['Read', 'Bash'] } } });
    const task = { description: 'fix', prompt: 'Fix it', subagent_type: 'fixer' };
    const bounded = subAgentInput(parent, view, 'toolu_n', task, agentTypes(parent.agents), BOUND);
    const unbounded = subAgentInput(parent, view, 'toolu_n', task, agentTypes(parent.agents), { boundByParent: false });
    expect(bounded).toEqual(unbounded);
    expect(bounded.ok && bounded.toolsLeftOut).toEqual([]);
  });

  test('starts recorded before the bound (patch marker absent) replay with the tools their type asked for', () => {
    const parent = readOnlyParent({
      agents: { fixer: { description: 'Fixes', prompt: 'p', tools: ['Bash', 'Write'] } },
    });
    const start = subAgentInput(
      parent,
      view,
      'toolu_o',
      { description: 'fix', prompt: 'Fix', subagent_type: 'fixer' },
      agentTypes(parent.agents),
      { boundByParent: false },
    );
    expect(
      start.ok && [
        start.input.allowedTools,
        start.toolsLeftOut,
        (start.input.parentSession as Record<string, unknown>).toolsLeftOut,
      ],
    ).toEqual([['Bash', 'Write'], [], undefined]);
  });

  test.each(['auto', 'ask'] as const)(
    "mode (%s), allow rules, sandbox, network, trust and hooks are the parent's, whatever the type",
    (permissionMode) => {
      const hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './policy.sh' }] }] };
      const parent = parentInput({
        permissionMode,
        network: permissionMode === 'auto',
        trustRepoHooks: permissionMode === 'ask',
        hooks,
        agents: { big: { description: 'd', prompt: 'p', tools: ['Bash', 'Write', 'Edit'], model: 'opus' } },
      });
      const start = subAgentInput(
        parent,
        view,
        'toolu_m',
        { description: 'd', prompt: 'p', subagent_type: 'big' },
        agentTypes(parent.agents),
        BOUND,
      );
      expect(start.ok && start.input).toMatchObject({
        permissionMode,
        allowRules: ['Bash(npm test)'],
        approvalTimeoutMs: parent.approvalTimeoutMs,
        sandboxEnv: { NODE_ENV: 'test' },
        network: permissionMode === 'auto',
        trustRepoHooks: permissionMode === 'ask',
        hooks,
      });
    },
  );

  test("a type's mode never loosens the parent's; a field Claude Code does not have is refused; a forged note grants nothing", () => {
    const parent = parentInput({ agents: { loose: { description: 'd', prompt: 'p', permissionMode: 'auto' } } });
    const loose = subAgentInput(
      parent,
      view,
      'toolu_m',
      { description: 'd', prompt: 'p', subagent_type: 'loose' },
      agentTypes(parent.agents, [], { claudeCode: true }),
      { ...BOUND, claudeCodeDefinitions: true },
    );
    expect(loose.ok && loose.input.permissionMode).toBe('ask');
    const typed = checkAgentInput({
      prompt: 'p',
      workdir: '/abs',
      agents: { loose: { description: 'd', prompt: 'p', sandbox: 'none' } },
    });
    expect(typed.ok || typed.message).toContain('unknown field(s): agents.loose.sandbox');
    const forged = checkAgentInput({
      prompt: 'p',
      workdir: '/abs',
      allowedTools: ['Read'],
      parentSession: {
        workflowId: 'w',
        toolUseId: 't',
        description: 'd',
        toolsLeftOut: { agentType: 'x', tools: ['Bash'] },
      },
    });
    expect(forged.ok && forged.input.allowedTools).toEqual(['Read']);
    const unknownTool = checkAgentInput({
      prompt: 'p',
      workdir: '/abs',
      parentSession: {
        workflowId: 'w',
        toolUseId: 't',
        description: 'd',
        toolsLeftOut: { agentType: 'x', tools: ['Sudo'] },
      },
    });
    expect(unknownTool.ok).toBe(false);
  });

  test('the note both transcripts carry names the type and what was left out', () => {
    expect(toolsLeftOutNote('toolu_f', 'fixer', ['Bash', 'Write'])).toEqual({
      type: 'sub_agent_tools',
      toolUseId: 'toolu_f',
      agentType: 'fixer',
      leftOut: ['Bash', 'Write'],
      detail: 'Sub-agent type fixer asked for Bash, Write; the parent does not have them: left out.',
    });
    expect(toolsLeftOutNote('toolu_s', 'shell', ['Bash']).detail).toBe(
      'Sub-agent type shell asked for Bash; the parent does not have it: left out.',
    );
  });
});

describe("Claude Code's agent definitions (patched('sub-agent-definitions'))", () => {
  const DEFINITIONS = { boundByParent: true, claudeCodeDefinitions: true };
  const start = (parent: ReturnType<typeof parentInput>, subagentType?: string) =>
    subAgentInput(
      parent,
      view,
      'toolu_d',
      { description: 'd', prompt: 'Do it', ...(subagentType ? { subagent_type: subagentType } : {}) },
      agentTypes(parent.agents, [], { claudeCode: true }),
      DEFINITIONS,
    );

  test("a call without subagent_type is general-purpose: the parent's tools but the sub-agent tool", () => {
    const parent = parentInput({ allowedTools: ['Read', 'Edit', 'Bash', 'Task'] });
    const child = start(parent);
    expect(child.ok && child.type.name).toBe('general-purpose');
    expect(child.ok && child.input.allowedTools).toEqual(['Read', 'Edit', 'Bash']);
    expect(child.ok && child.toolsLeftOut).toEqual([]);
  });

  test('Explore (and explore) reads: no Edit, Write nor sub-agents', () => {
    const parent = parentInput({ allowedTools: ['Read', 'Glob', 'Grep', 'Edit', 'Write', 'Bash', 'Task'] });
    for (const name of ['Explore', 'explore']) {
      const child = start(parent, name);
      expect(child.ok && child.input.allowedTools).toEqual(['Read', 'Glob', 'Grep', 'Bash']);
    }
  });

  test("disallowedTools, maxTurns, model and initialPrompt apply; the turns never exceed the parent's", () => {
    const parent = parentInput({
      maxTurns: 30,
      agents: {
        careful: {
          description: 'd',
          prompt: 'Be careful.',
          disallowedTools: ['Bash', 'Write'],
          maxTurns: 4,
          model: 'haiku',
          initialPrompt: 'Read CONTRIBUTING.md first.',
          mcpServers: ['github'],
          effort: 'high',
        },
        greedy: { description: 'd', prompt: 'p', tools: ['Read', 'Task'], maxTurns: 500 },
      },
    });
    const careful = start(parent, 'careful');
    expect(careful.ok && careful.input).toMatchObject({
      // The parent's tools (all of them) but the sub-agent tool, the person's tools and the disallowed ones.
      allowedTools: TOOL_NAMES.filter(
        (tool) =>
          !['Agent', 'Task', 'Bash', 'Write', 'EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion'].includes(tool),
      ),
      maxTurns: 4,
      model: 'claude-haiku-5-5',
      prompt: 'Read CONTRIBUTING.md first.\n\nDo it',
      systemPrompt: 'Be careful.',
    });
    const greedy = start(parent, 'greedy');
    // A type that lists the sub-agent tool has it (when the parent does); turns: the parent's at most.
    expect(greedy.ok && greedy.input).toMatchObject({ allowedTools: ['Read', 'Task'], maxTurns: 30 });
    for (const child of [careful, greedy]) expect(child.ok && checkAgentInput(child.input).ok).toBe(true);
  });

  test("the mode is the stricter of the parent's and the type's, in one function", () => {
    expect(subAgentPermissionMode('auto', undefined)).toBe('auto');
    expect(subAgentPermissionMode('auto', 'plan')).toBe('plan');
    expect(subAgentPermissionMode('ask', 'bypassPermissions')).toBe('ask');
    expect(subAgentPermissionMode('ask', 'auto')).toBe('ask');
    expect(subAgentPermissionMode('ask', 'dontAsk')).toBe('dontAsk');
    expect(subAgentPermissionMode('default', 'acceptEdits')).toBe('default');
    expect(subAgentMaxTurns(10, undefined)).toBe(10);
    expect(subAgentMaxTurns(10, 50)).toBe(10);
    expect(subAgentMaxTurns(10, 3)).toBe(3);
    expect(inheritedTools(['Read', 'Task', 'Agent', 'Bash'])).toEqual(['Read', 'Bash']);
  });

  test("starts recorded before keep the old defaults: explore, Read/Glob/Grep, the parent's turns", () => {
    const parent = parentInput({ agents: { capped: { description: 'd', prompt: 'p', maxTurns: 2 } } });
    const old = subAgentInput(
      parent,
      view,
      'toolu_o',
      { description: 'd', prompt: 'p' },
      agentTypes(parent.agents),
      BOUND,
    );
    expect(old.ok && old.type.name).toBe('explore');
    expect(old.ok && old.input.allowedTools).toEqual(['Read', 'Glob', 'Grep']);
    const capped = subAgentInput(
      parent,
      view,
      'toolu_c',
      { description: 'd', prompt: 'p', subagent_type: 'capped' },
      agentTypes(parent.agents),
      BOUND,
    );
    expect(capped.ok && capped.input.maxTurns).toBe(parent.maxTurns);
  });
});
