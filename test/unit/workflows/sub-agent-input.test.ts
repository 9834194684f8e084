/** What a sub-agent inherits from its parent, and what its type changes. */
import { checkAgentInput } from '../../../src/shared/input';
import { type AgentResult } from '../../../src/shared/contract';
import { agentTypes } from '../../../src/shared/sub-agents';
import { subAgentInput, subAgentWorkflowId } from '../../../src/workflows/sub-agent-input';
import { subAgentResult } from '../../../src/workflows/sub-agents';

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

test('by default: a read-only explorer with the parent workdir, host, model, permissions and sandbox, without stop hooks', () => {
  const start = subAgentInput(parentInput(), view, 'toolu_1', { description: 'find callers', prompt: 'Find callers of parse' }, agentTypes(undefined));
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
  const parent = parentInput({ agents: { fixer: { description: 'Fixes', prompt: 'You fix bugs.', tools: ['Read', 'Edit', 'Bash'], model: 'haiku' } } });
  const types = agentTypes(parent.agents, [{ name: 'reviewer', description: 'Reviews', prompt: 'Review.', source: '.claude/agents/reviewer.md' }]);
  const fixer = subAgentInput(parent, view, 'toolu_2', { description: 'fix', prompt: 'Fix it', subagent_type: 'fixer' }, types);
  expect(fixer.ok && fixer.input).toMatchObject({ allowedTools: ['Read', 'Edit', 'Bash'], systemPrompt: 'You fix bugs.', model: 'claude-haiku-5-5' });
  const unknown = subAgentInput(parent, view, 'toolu_3', { description: 'x', prompt: 'x', subagent_type: 'nope' }, types);
  expect(unknown).toEqual({ ok: false, error: 'No agent type "nope". Agent types: explore, fixer, reviewer.' });
});

test("the input's types win a name over the repository's", () => {
  const types = agentTypes({ reviewer: { description: 'Input reviewer', prompt: 'p' } }, [{ name: 'reviewer', description: 'Repo reviewer', prompt: 'q', source: 'repo' }]);
  expect(types.find((type) => type.name === 'reviewer')?.description).toBe('Input reviewer');
});

test('the child workflow id is derived from the parent and the call', () => {
  expect(subAgentWorkflowId('parent-1', 'toolu_9')).toBe('parent-1-task-toolu_9');
});

test("the tool result is the sub-agent's final text; a sub-agent that did not complete is an error saying why", () => {
  const call = { id: 'toolu_1', name: 'Task' };
  const result = (reason: AgentResult['reason'], finalText: string, error?: string) => ({ reason, finalText, turnCount: 2, usage: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, ...(error ? { error } : {}) });
  expect(subAgentResult(call, 'explore', 'c', result('completed', 'Found 3 callers.'))).toEqual({ toolUseId: 'toolu_1', isError: false, content: { text: 'Found 3 callers.' }, toolName: 'Task' });
  const stopped = subAgentResult(call, 'explore', 'c', result('max_turns', 'partial', 'Reached maxTurns'));
  expect(stopped.isError).toBe(true);
  expect(JSON.stringify(stopped.content)).toContain('stopped before it finished: max_turns (Reached maxTurns) after 2 turns. Its last message:\\npartial');
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
  const start = subAgentInput(parent, view, 'toolu_h', { description: 'd', prompt: 'p' }, agentTypes(undefined));
  expect(start.ok && start.input.hooks).toEqual({
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './policy.sh', timeout: 5 }] }],
    PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'prettier --write' }] }],
  });
  expect(start.ok && start.input.stopHooks).toEqual([]);
  expect(start.ok && checkAgentInput(start.input).ok).toBe(true);
});
