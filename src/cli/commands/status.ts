/** `durable-agent status`: one session's row, what it is doing, and its result; no worker needed. */
import { parseArgs } from 'node:util';
import type { Command } from '../command';
import { UsageError } from '../usage-error';

export const statusCommand: Command = {
  name: 'status',
  usage: '  durable-agent status <workflow-id> [--json]             turn, status, tokens, pending approvals',
  async run(args, environment) {
    // An unknown option is not a usage error here (exit 1, no usage): as it always was.
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
    const workflowId = positionals[0];
    if (!workflowId) throw new UsageError('usage: durable-agent status <workflow-id> [--json]');
    const { withClient } = await import('../cli-client');
    const { printStatus } = await import('../status-report');
    return withClient(environment, (client, store) =>
      printStatus(client, store, environment, workflowId, values.json === true),
    );
  },
};
