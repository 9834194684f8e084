/** Task: a sub-agent's work, planned here and run by the workflow as a child, never as a tool activity. */
import { TOOLS } from '../../../../src/activities/tools/registry';
import { taskTool } from '../../../../src/activities/tools/task';
import { ToolError } from '../../../../src/activities/tools/tool';
import { inputError, toolWorkdir } from '../../../support/tool-workdir';

const input = { description: 'Find parseConfig callers', prompt: 'List every caller of parseConfig in src/.' };

describe('Task', () => {
  test('planned as a sub-agent: side by side with other safe calls, its turn ending with a snapshot', async () => {
    const planned = await TOOLS.plan({ id: 'toolu_1', name: 'Task', input }, toolWorkdir('task').path, ['Task']);
    expect(planned.plan).toEqual({
      ok: true,
      concurrencySafe: true,
      summary: 'Task: Find parseConfig callers',
      // Agent(explore) and Task(explore) rules match it by its type.
      rules: { subAgent: true, changesFiles: true, ruleNames: ['Agent', 'Task'], ruleSpecifier: 'explore' },
    });
  });

  test('its summary names the agent type when one is asked for', () => {
    expect(taskTool.summarize({ ...input, subagent_type: 'reviewer' })).toBe(
      'Task: Find parseConfig callers (reviewer)',
    );
    expect(taskTool.subject(input)).toBe('Find parseConfig callers');
  });

  test('sent to the tool activity (a worker of an older version would) it is refused, not run', async () => {
    const run = taskTool.execute(input, toolWorkdir('task').context());
    await expect(run).rejects.toThrow('Task runs as a child workflow, not as a tool activity.');
    await expect(run).rejects.toBeInstanceOf(ToolError);
  });

  test('its input: a description of at most 200 characters and a prompt, neither blank; the type not empty', () => {
    expect(inputError('Task', { ...input, subagent_type: 'explore' })).toBeUndefined();
    expect(inputError('Task', { description: 'x' })).toContain('the required parameter `prompt` is missing');
    expect(inputError('Task', { ...input, prompt: '  \n ' })).toContain('- `prompt`:');
    expect(inputError('Task', { ...input, description: '   ' })).toContain('- `description`:');
    expect(inputError('Task', { ...input, description: 'd'.repeat(201) })).toContain('- `description`:');
    expect(inputError('Task', { ...input, subagent_type: '' })).toContain('- `subagent_type`:');
    expect(inputError('Task', { ...input, model: 'opus' })).toContain('unexpected parameter(s): model');
  });

  test('the description and prompt reach the sub-agent trimmed', () => {
    const validation = TOOLS.validate('Task', { description: '  Find callers ', prompt: '\nList them.\n' }, ['Task']);
    expect(validation).toMatchObject({ ok: true, input: { description: 'Find callers', prompt: 'List them.' } });
  });
});
