import { z } from 'zod';
import { defineTool, ToolError } from './tool';

/**
 * TaskStop, as Claude Code declares it (`task_id`, or the deprecated `shell_id`): stops a
 * background command or agent. Declared now so its schema is checked against Claude Code's; not
 * in the registry (never offered to the model) until background commands exist (issue 26): there
 * is nothing running in the background to stop.
 */
export const taskStopTool = defineTool({
  name: 'TaskStop',
  description: 'Stops a running background task (a command or agent started in the background) by its id.',
  schema: z
    .object({
      task_id: z.string().optional().describe('The ID of the background task to stop'),
      shell_id: z.string().optional().describe('Deprecated: use task_id instead'),
    })
    .strict(),
  needsApproval: false,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  labelsItself: true,
  subject: (input) => input.task_id ?? input.shell_id ?? '',
  summarize: (input) => `TaskStop ${input.task_id ?? input.shell_id ?? ''}`.trim(),
  async execute(input) {
    const id = input.task_id ?? input.shell_id;
    throw new ToolError(
      `No background task ${id ? `${id} ` : ''}is running: background commands are not available yet.`,
    );
  },
});
