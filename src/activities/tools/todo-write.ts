import { z } from 'zod';
import { TODO_STATUSES, todoProgress } from '../../shared/todos';
import { defineTool, ToolError } from './tool';

/**
 * TodoWrite, as the reference has it: the model writes its whole plan each time, and the
 * workflow keeps the last list (src/workflows/agent-session.ts). Nothing is written anywhere:
 * the call only has to be valid, which is all this activity checks.
 */
export const todoWriteTool = defineTool({
  name: 'TodoWrite',
  description: [
    'Writes the task list for this session: the whole list each time (it replaces the previous one).',
    '- Use it for work of three steps or more: plan the steps first, then keep the list current.',
    '- Exactly one item in_progress at a time; mark an item completed as soon as it is done, not in batches.',
    '- content says what to do ("Rename parseConfig in src/"); activeForm says it while doing it ("Renaming parseConfig in src/").',
    '- The person running the session watches this list.',
  ].join('\n'),
  schema: z
    .object({
      todos: z
        .array(
          z
            .object({
              content: z.string().min(1).describe('What to do'),
              status: z.enum(TODO_STATUSES),
              activeForm: z.string().min(1).describe('The same, in the present continuous, shown while in progress'),
            })
            .strict(),
        )
        .describe('The whole list, in order'),
    })
    .strict(),
  needsApproval: false,
  // One after another: each call replaces the list, so their order matters.
  isConcurrencySafe: () => false,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  subject: (input) => todoProgress(input.todos),
  summarize: (input) => `TodoWrite ${todoProgress(input.todos)}`,
  async execute(input) {
    if (input.todos.filter((todo) => todo.status === 'in_progress').length > 1) {
      throw new ToolError('More than one item is in_progress: keep exactly one in progress at a time.');
    }
    return {
      text: 'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable.',
    };
  },
});
