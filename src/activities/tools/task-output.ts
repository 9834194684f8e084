import { z } from 'zod';
import { TASK_OUTPUT_DEFAULT_TIMEOUT_MS, TASK_OUTPUT_MAX_TIMEOUT_MS } from '../../shared/background';
import { defineTool, ToolError } from './tool';

/**
 * TaskOutput, in Claude Code's shape (`task_id`, `block`, `timeout`): a background command's
 * status and output, waiting up to `timeout` for its end when `block` (the default). The workflow
 * carries it out (`background: 'output'`, a durable condition on its state): no activity.
 */
export const taskOutputTool = defineTool({
  name: 'TaskOutput',
  description: [
    '- Retrieves output from a running or completed background task (a command started with run_in_background)',
    '- Takes a task_id parameter identifying the task',
    '- Returns the task output along with status information',
    '- Use block=true (default) to wait for task completion',
    '- Use block=false for non-blocking check of current status',
  ].join('\n'),
  schema: z
    .object({
      task_id: z.string().describe('The task ID to get output from'),
      block: z.boolean().optional().describe('Whether to wait for completion (default true)'),
      timeout: z
        .number()
        .min(0)
        .max(TASK_OUTPUT_MAX_TIMEOUT_MS)
        .optional()
        .describe(`Max wait time in ms (default ${TASK_OUTPUT_DEFAULT_TIMEOUT_MS})`),
    })
    .strict(),
  needsApproval: false,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  labelsItself: true,
  background: () => 'output',
  subject: (input) => input.task_id,
  summarize: (input) => `TaskOutput ${input.task_id}`,
  async execute() {
    throw new ToolError('TaskOutput is carried out by the session itself.');
  },
});
