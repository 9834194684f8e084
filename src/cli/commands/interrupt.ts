/** `durable-agent interrupt`: stops the model call or tools in flight (update `interrupt`). */
import { positional } from '../arguments';
import type { Command } from '../command';

export const interruptCommand: Command = {
  name: 'interrupt',
  usage: '  durable-agent interrupt <workflow-id>                   stop the model call or tools in flight',
  async run(args, environment) {
    const [workflowId] = positional(args, 1, 'interrupt <workflow-id>');
    const { withClient } = await import('../cli-client');
    const { interruptSession } = await import('../session-steering');
    return withClient(environment, (client) => interruptSession(client, workflowId!));
  },
};
