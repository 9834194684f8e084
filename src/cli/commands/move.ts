/**
 * `durable-agent move`: a `workdir` session whose host is lost (status `waiting_host`) goes on on
 * another host, from its last snapshot, through the `move` update the Temporal CLI can send too.
 */
import type { MoveRequest } from '../../shared/contract';
import { parseOptions } from '../arguments';
import type { Command } from '../command';
import { UsageError } from '../usage-error';

const USAGE = 'usage: durable-agent move <workflow-id> --host <host id> [--workdir <dir on that host>]';

/** The session and where it goes; wrong arguments throw a UsageError. */
export function parseMoveArguments(args: string[]): { workflowId: string; destination: MoveRequest } {
  const { values, positionals } = parseOptions(args, { host: { type: 'string' }, workdir: { type: 'string' } });
  const [workflowId] = positionals;
  const { host, workdir } = values;
  if (!workflowId || !host) throw new UsageError(USAGE);
  if (workdir !== undefined && !workdir.startsWith('/'))
    throw new UsageError('--workdir must be an absolute path on the new host');
  return { workflowId, destination: { host, ...(workdir ? { workdir } : {}) } };
}

export const moveCommand: Command = {
  name: 'move',
  usage: `  durable-agent move <workflow-id> --host <host id> [--workdir <dir>]
                                                          a session waiting for its lost host goes on on another`,
  async run(args, environment) {
    const { workflowId, destination } = parseMoveArguments(args);
    const { withClient } = await import('../cli-client');
    const { moveSession } = await import('../session-steering');
    return withClient(environment, (client) => moveSession(client, workflowId, destination));
  },
};
