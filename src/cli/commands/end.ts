/** `durable-agent end`: an interactive session closes once it waits for input (signal `end`). */
import { positional } from '../arguments';
import type { Command } from '../command';

export const endCommand: Command = {
  name: 'end',
  usage:
    '  durable-agent end <workflow-id>                         close an interactive session once it waits for input',
  async run(args, environment) {
    const [workflowId] = positional(args, 1, 'end <workflow-id>');
    const { withClient } = await import('../cli-client');
    const { endSession } = await import('../session-steering');
    return withClient(environment, (client) => endSession(client, workflowId!));
  },
};
