/** Agent (and its old name Task): a sub-agent's work, planned here and run by the workflow as a child, never as a tool activity. */
import { agentTool } from '../../../../src/activities/tools/agent';
import { TOOLS } from '../../../../src/activities/tools/registry';
import { ToolError } from '../../../../src/activities/tools/tool';
import { inputError, toolWorkdir } from '../../../support/tool-workdir';

const input = { description: 'Find parseConfig callers', prompt: 'List every caller of parseConfig in src/.' };

describe('Agent', () => {
  test('planned as a sub-agent: side by side with other safe calls, its turn ending with a snapshot', async () => {
    const planned = await TOOLS.plan({ id: 'toolu_1', name: 'Agent', input }, toolWorkdir('agent').path, ['Agent']);
    expect(planned.plan).toEqual({
      ok: true,
      concurrencySafe: true,
      summary: 'Agent: Find parseConfig callers',
      rules: { subAgent: true, changesFiles: true, aliases: ['Task'], ruleSpecifier: 'general-purpose' },
    });
  });

  test('a call named Task (its name before Claude Code 2.1.63, and in older histories) runs the same tool, summarised as before', async () => {
    for (const allowed of [['Task'], ['Agent'], ['Read', 'Task', 'Agent']]) {
      const planned = await TOOLS.plan({ id: 'toolu_1', name: 'Task', input }, toolWorkdir('agent').path, allowed);
      expect(planned).toMatchObject({ name: 'Task' });
      expect(planned.plan).toEqual({
        ok: true,
        concurrencySafe: true,
        summary: 'Task: Find parseConfig callers',
        rules: { subAgent: true, changesFiles: true, aliases: ['Agent'], ruleSpecifier: 'general-purpose' },
      });
    }
    expect(TOOLS.find('Task')).toBe(agentTool);
    expect(TOOLS.find('Agent', ['Task'])).toBe(agentTool);
    expect(TOOLS.find('Task', ['Read'])).toBeUndefined();
  });

  test('offered to the model once, as Agent, whichever of its names allowedTools has', () => {
    for (const allowed of [['Task'], ['Agent'], ['Agent', 'Task']])
      expect(TOOLS.apiDefinitions(allowed).map((tool) => tool.name)).toEqual(['Agent']);
    expect(TOOLS.apiDefinitions().filter((tool) => tool.name === 'Task')).toEqual([]);
  });

  test('its summary names the agent type when one is asked for', () => {
    expect(agentTool.summarize({ ...input, subagent_type: 'reviewer' })).toBe(
      'Agent: Find parseConfig callers (reviewer)',
    );
    expect(agentTool.subject(input)).toBe('Find parseConfig callers');
  });

  test('sent to the tool activity (a worker of an older version would) it is refused, not run', async () => {
    const run = agentTool.execute(input, toolWorkdir('agent').context());
    await expect(run).rejects.toThrow('Agent runs as a child workflow, not as a tool activity.');
    await expect(run).rejects.toBeInstanceOf(ToolError);
  });

  test("its input: a description of at most 200 characters and a prompt, neither blank; Claude Code's other fields", () => {
    expect(inputError('Agent', { ...input, subagent_type: 'explore' })).toBeUndefined();
    expect(inputError('Agent', { description: 'x' })).toContain('the required parameter `prompt` is missing');
    expect(inputError('Agent', { ...input, prompt: '  \n ' })).toContain('- `prompt`:');
    expect(inputError('Agent', { ...input, description: '   ' })).toContain('- `description`:');
    expect(inputError('Agent', { ...input, description: 'd'.repeat(201) })).toContain('- `description`:');
    expect(inputError('Agent', { ...input, subagent_type: '' })).toContain('- `subagent_type`:');
    const everything = {
      ...input,
      model: 'opus',
      effort: 'high',
      run_in_background: true,
      name: 'scout',
      team_name: 'default',
      mode: 'bypassPermissions',
    };
    expect(inputError('Agent', everything)).toBeUndefined();
    expect(inputError('Task', everything)).toBeUndefined();
    expect(inputError('Agent', { ...input, model: 'claude-opus-5-5' })).toContain('- `model`:');
    expect(inputError('Agent', { ...input, color: 'red' })).toContain('unexpected parameter(s): color');
  });

  test('isolation "worktree" is planned (a writing sub-agent); "remote" is refused before anything starts', async () => {
    const workdir = toolWorkdir('agent').path;
    const worktree = await TOOLS.plan(
      { id: 'toolu_1', name: 'Agent', input: { ...input, isolation: 'worktree' } },
      workdir,
      ['Agent'],
    );
    expect(worktree.plan).toMatchObject({ ok: true, rules: { subAgent: true, changesFiles: true } });
    expect(worktree.input).toMatchObject({ isolation: 'worktree' });
    const remote = await TOOLS.plan(
      { id: 'toolu_2', name: 'Agent', input: { ...input, isolation: 'remote' } },
      workdir,
      ['Agent'],
    );
    expect(remote.plan).toEqual({
      ok: false,
      errorText:
        '<tool_use_error>isolation "remote" is not available here: use isolation "worktree" (a copy of your files, merged back), or none.</tool_use_error>',
      rules: { subAgent: true, changesFiles: true, aliases: ['Task'] },
    });
  });

  test('the description and prompt reach the sub-agent trimmed', () => {
    const validation = TOOLS.validate('Agent', { description: '  Find callers ', prompt: '\nList them.\n' }, ['Agent']);
    expect(validation).toMatchObject({ ok: true, input: { description: 'Find callers', prompt: 'List them.' } });
  });
});
