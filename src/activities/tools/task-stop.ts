import { z } from 'zod';
import { defineTool, ToolError } from './tool';

/**
 * TaskStop, as Claude Code declares it (`task_id`, or the deprecated `shell_id`): stops a
 * background command (issue 26). The workflow carries it out (`background: 'stop'`: the command's
 * activity cancelled, its process group killed): no activity of its own.
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
  background: () => 'stop',
  subject: (input) => input.task_id ?? input.shell_id ?? '',
  summarize: (input) => `TaskStop ${input.task_id ?? input.shell_id ?? ''}`.trim(),
  async execute() {
    throw new ToolError('TaskStop is carried out by the session itself.');
  },
});
