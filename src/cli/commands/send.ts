/** `durable-agent send`: a message for the session's next turn (signal `userMessage`). */
import { positional } from '../arguments';
import type { Command } from '../command';

export const sendCommand: Command = {
  name: 'send',
  usage: '  durable-agent send <workflow-id> "<text>"               queue a message for the next turn',
  async run(args, environment) {
    const [workflowId, ...words] = positional(args, 2, 'send <workflow-id> "<text>"');
    const { withClient } = await import('../cli-client');
    const { sendMessage } = await import('../session-steering');
    return withClient(environment, (client) => sendMessage(client, workflowId!, words.join(' ')));
  },
};
