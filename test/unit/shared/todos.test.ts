import { todoLines, todoProgress, todosOf, writtenTodos } from '../../../src/shared/todos';

const list = [
  { content: 'Find callers', status: 'completed' as const, activeForm: 'Finding callers' },
  { content: 'Rename', status: 'in_progress' as const, activeForm: 'Renaming' },
  { content: 'Test', status: 'pending' as const, activeForm: 'Testing' },
];

describe('the todo list', () => {
  test("a batch leaves its last successful TodoWrite's list; failed or other calls change nothing", () => {
    const calls = [
      { name: 'TodoWrite', input: { todos: list.slice(0, 1) } },
      { name: 'Read', input: { file_path: 'a' } },
      { name: 'TodoWrite', input: { todos: list } },
      { name: 'TodoWrite', input: { todos: [] } },
    ];
    expect(
      writtenTodos(calls, [{ isError: false }, { isError: false }, { isError: false }, { isError: true }]),
    ).toEqual(list);
    expect(writtenTodos(calls.slice(1, 2), [{ isError: false }])).toBeUndefined();
    expect(todosOf({ todos: [{ content: 'x', status: 'done', activeForm: 'x' }] })).toBeUndefined();
  });

  test('shown in one line, and one line per item', () => {
    expect(todoProgress(list)).toBe('1/3 done · Renaming');
    expect(todoLines(list)).toEqual(['☑ Find callers', '▸ Renaming', '☐ Test']);
  });
});
