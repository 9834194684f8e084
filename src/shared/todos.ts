/**
 * The session's todo list (TodoWrite): the plan the model writes and ticks off, kept in the
 * workflow and shown in the `state` query, the Temporal UI's current details, `status` and `watch`.
 */
export interface Todo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  /** The task in the present continuous ("Renaming parseConfig"), shown while it is in progress. */
  activeForm: string;
}

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;

/** A TodoWrite call's list, or undefined when the input is not one (the tool refused it). */
export function todosOf(input: unknown): Todo[] | undefined {
  const todos = (input as { todos?: unknown } | null)?.todos;
  if (!Array.isArray(todos)) return undefined;
  const valid = todos.every(
    (todo: Partial<Todo> | null) =>
      typeof todo?.content === 'string' &&
      typeof todo.activeForm === 'string' &&
      (TODO_STATUSES as readonly string[]).includes(todo.status as string),
  );
  return valid ? todos.map(({ content, status, activeForm }: Todo) => ({ content, status, activeForm })) : undefined;
}

/** The list a batch of tool calls leaves: its last TodoWrite that succeeded, if any. */
export function writtenTodos(
  calls: readonly { name: string; input: unknown }[],
  results: readonly { isError: boolean }[],
): Todo[] | undefined {
  let written: Todo[] | undefined;
  calls.forEach((call, index) => {
    if (call.name !== 'TodoWrite' || results[index]?.isError !== false) return;
    written = todosOf(call.input) ?? written;
  });
  return written;
}

/** `2/5 done · Renaming parseConfig`: a list in one line. */
export function todoProgress(todos: readonly Todo[]): string {
  const done = todos.filter((todo) => todo.status === 'completed').length;
  const current = todos.find((todo) => todo.status === 'in_progress');
  return `${done}/${todos.length} done${current ? ` · ${current.activeForm}` : ''}`;
}

/** One line per item: `☑ done`, `▸ in progress`, `☐ pending`. */
export function todoLines(todos: readonly Todo[]): string[] {
  return todos.map(
    (todo) =>
      `${todo.status === 'completed' ? '☑' : todo.status === 'in_progress' ? '▸' : '☐'} ${todo.status === 'in_progress' ? todo.activeForm : todo.content}`,
  );
}
