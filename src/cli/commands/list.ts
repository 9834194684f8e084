/** `durable-agent list`: sessions, newest first, as a table or JSON; no worker needed. */
import { parseArgs } from 'node:util';
import type { Command } from '../command';
import type { ListArguments } from '../status-report';
import { UsageError } from '../usage-error';

/** The options, checked; async because the statuses' module loads the SDK's search attribute keys. */
export async function parseListArguments(args: string[]): Promise<ListArguments> {
  // An unknown option or a positional is not a usage error here (exit 1, no usage): as it always was.
  const { values } = parseArgs({
    args,
    options: { status: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
  });
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit takes a whole number above 0, not ${values.limit}`);
  const status = values.status;
  const { isSessionStatus, SESSION_STATUSES } = await import('../session-status');
  if (status !== undefined && !isSessionStatus(status)) {
    throw new UsageError(
      `--status ${status} is not a session status; use one of: ${SESSION_STATUSES.join(', ')}`,
      false,
    );
  }
  return { ...(status !== undefined ? { status } : {}), limit, json: values.json === true };
}

export const listCommand: Command = {
  name: 'list',
  usage: `  durable-agent list [--status waiting_approval] [--limit N] [--json]
                                                          sessions, newest first`,
  async run(args, environment) {
    const listing = await parseListArguments(args);
    const { withClient } = await import('../cli-client');
    const { printList } = await import('../status-report');
    return withClient(environment, (client) => printList(client, listing));
  },
};
