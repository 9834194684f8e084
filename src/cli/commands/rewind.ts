/** `durable-agent rewind`: the session (and, unless --conversation-only, its files) back to turn N. */
import type { RewindRequest } from '../../shared/contract';
import { parseOptions, turnOption } from '../arguments';
import type { Command } from '../command';
import { UsageError } from '../usage-error';

/** The session and the rewind asked for; wrong arguments throw a UsageError. */
export function parseRewindArguments(args: string[]): {
  workflowId: string;
  request: RewindRequest & { files: boolean; force: boolean };
} {
  const { values, positionals } = parseOptions(args, {
    turn: { type: 'string' },
    'conversation-only': { type: 'boolean' },
    force: { type: 'boolean' },
  });
  const [workflowId] = positionals;
  const turn = turnOption(values.turn);
  if (!workflowId || turn === undefined)
    throw new UsageError('usage: durable-agent rewind <workflow-id> --turn N [--conversation-only] [--force]');
  return { workflowId, request: { turn, files: !values['conversation-only'], force: values.force === true } };
}

export const rewindCommand: Command = {
  name: 'rewind',
  usage: `  durable-agent rewind <workflow-id> --turn N [--conversation-only] [--force]
                                                          take the session (and its files) back to turn N`,
  async run(args, environment) {
    const { workflowId, request } = parseRewindArguments(args);
    // Imported here: the workspace's modules (zod schemas, diffs) would slow every other command's start.
    const { withClient } = await import('../cli-client');
    const { rewindSession } = await import('../rewind-session');
    return withClient(environment, (client, store) => rewindSession(client, store, workflowId, request));
  },
};
