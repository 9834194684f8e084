/**
 * `durable-agent move`: a `workdir` session whose host is lost (status `waiting_host`) goes on on
 * another host, from its last snapshot, through the `move` update the Temporal CLI can send too.
 */
import { parseArgs } from 'node:util';
import type { MoveResult } from '../shared/contract';
import { moveUpdate } from '../workflows/definitions';
import { UsageError, withClient } from './cli-client';

const USAGE = 'usage: durable-agent move <workflow-id> --host <host id> [--workdir <dir on that host>]';

export async function moveCommand(args: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { host: { type: 'string' }, workdir: { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [workflowId] = parsed.positionals;
  const { host, workdir } = parsed.values;
  if (!workflowId || !host) throw new UsageError(USAGE);
  if (workdir !== undefined && !workdir.startsWith('/'))
    throw new UsageError('--workdir must be an absolute path on the new host');
  return withClient(environment, async (client) => {
    const result: MoveResult = await client.workflow
      .getHandle(workflowId)
      .executeUpdate(moveUpdate, { args: [{ host, ...(workdir ? { workdir } : {}) }] })
      .catch((error: Error & { cause?: Error }) => {
        throw new Error(error.cause?.message ?? error.message);
      });
    console.log(
      `Moved ${workflowId} to ${result.host}: the files of turn ${result.turn} are in ${result.workdir}; the session goes on there.`,
    );
    return 0;
  });
}
