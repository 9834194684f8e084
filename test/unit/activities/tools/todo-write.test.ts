/** TodoWrite: the whole list each call, checked and nothing more (the workflow keeps it). */
import { TOOLS } from '../../../../src/activities/tools/registry';
import { todoWriteTool } from '../../../../src/activities/tools/todo-write';
import type { Todo } from '../../../../src/shared/todos';
import { inputError, toolWorkdir } from '../../../support/tool-workdir';

const plan: Todo[] = [
  { content: 'Read the config loader', status: 'completed', activeForm: 'Reading the config loader' },
  { content: 'Rename parseConfig', status: 'in_progress', activeForm: 'Renaming parseConfig' },
  { content: 'Run the tests', status: 'pending', activeForm: 'Running the tests' },
];

describe('TodoWrite', () => {
  test('a list with at most one item in progress is accepted, the empty list too', async () => {
    const context = toolWorkdir('todo-write').context();
    const accepted = await todoWriteTool.execute({ todos: plan }, context);
    expect(accepted.text).toMatch(/^Todos have been modified successfully\./);
    expect(accepted.isError).toBeUndefined();
    expect((await todoWriteTool.execute({ todos: [] }, context)).text).toMatch(/^Todos have been modified/);
    const nothingStarted = plan.map((item) => ({ ...item, status: 'pending' as const }));
    expect((await todoWriteTool.execute({ todos: nothingStarted }, context)).text).toMatch(/^Todos have been/);
  });

  test('two items in progress are refused: exactly one at a time', async () => {
    const twoAtOnce: Todo[] = [
      { content: 'Write the docs', status: 'in_progress', activeForm: 'Writing the docs' },
      ...plan,
    ];
    await expect(todoWriteTool.execute({ todos: twoAtOnce }, toolWorkdir('todo-write').context())).rejects.toThrow(
      'More than one item is in_progress: keep exactly one in progress at a time.',
    );
  });

  test('its summary is the progress: items done of all, and what is in progress', () => {
    expect(todoWriteTool.summarize({ todos: plan })).toBe('TodoWrite 1/3 done · Renaming parseConfig');
    expect(todoWriteTool.summarize({ todos: [] })).toBe('TodoWrite 0/0 done');
  });

  test('calls run one after another, never side by side: each replaces the list', async () => {
    const planned = await TOOLS.plan(
      { id: 'toolu_1', name: 'TodoWrite', input: { todos: plan } },
      toolWorkdir('todo-write').path,
      ['TodoWrite'],
    );
    expect(planned.plan).toMatchObject({
      ok: true,
      concurrencySafe: false,
      summary: 'TodoWrite 1/3 done · Renaming parseConfig',
    });
  });

  test('its input: each item has content, a known status and its activeForm, and nothing else', () => {
    expect(inputError('TodoWrite', { todos: plan })).toBeUndefined();
    expect(inputError('TodoWrite', {})).toContain('the required parameter `todos` is missing');
    expect(inputError('TodoWrite', { todos: [{ ...plan[0], status: 'done' }] })).toContain('- `todos.0.status`:');
    expect(inputError('TodoWrite', { todos: [{ ...plan[0], content: '' }] })).toContain('- `todos.0.content`:');
    expect(inputError('TodoWrite', { todos: [{ content: 'x', status: 'pending' }] })).toContain(
      'the required parameter `todos.0.activeForm` is missing',
    );
    expect(inputError('TodoWrite', { todos: [{ ...plan[0], id: '1' }] })).toContain('unexpected parameter(s): id');
  });
});
