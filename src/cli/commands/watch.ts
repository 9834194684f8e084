/** `durable-agent watch`: a session so far, then live until it ends (a closed one from the store). */
import { parseArgs } from 'node:util';
import { positional } from '../arguments';
import type { Command } from '../command';

export const watchCommand: Command = {
  name: 'watch',
  usage: '  durable-agent watch <workflow-id> [--json]              the session so far, then live until it ends',
  async run(args, environment) {
    // An unknown option is not a usage error here (exit 1, no usage): as it always was.
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
    const [workflowId] = positional(positionals, 1, 'watch <workflow-id> [--json]');
    // The printers load for watch only: every other command starts without them.
    const { withClient } = await import('../cli-client');
    const { SessionFollower } = await import('../follow');
    return withClient(environment, (client, store) =>
      new SessionFollower(client, workflowId!, { store, json: values.json === true }).follow(),
    );
  },
};
