/** `durable-agent diff`: what the session changed, as a unified diff or (`--stat`) a diffstat. */
import { parseOptions, turnOption } from '../arguments';
import type { Command } from '../command';
import type { DiffArguments } from '../session-diff';
import { UsageError } from '../usage-error';

/** The turns to diff; wrong arguments throw a UsageError. */
export function parseDiffArguments(args: string[]): DiffArguments {
  const { values, positionals } = parseOptions(args, {
    turn: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    stat: { type: 'boolean' },
  });
  const [workflowId] = positionals;
  if (!workflowId)
    throw new UsageError('usage: durable-agent diff <workflow-id> [--turn N | --from N --to M] [--stat]');
  const turn = turnOption(values.turn);
  // `--turn N`: what turn N changed; `--from/--to`: between two turns; neither: the whole session.
  const fromTurn = turn !== undefined ? Math.max(0, turn - 1) : turnOption(values.from, 'from');
  const toTurn = turn ?? turnOption(values.to, 'to');
  return {
    workflowId,
    ...(turn !== undefined ? { turn } : {}),
    ...(fromTurn !== undefined ? { fromTurn } : {}),
    ...(toTurn !== undefined ? { toTurn } : {}),
    stat: values.stat === true,
  };
}

export const diffCommand: Command = {
  name: 'diff',
  usage: `  durable-agent diff <workflow-id> [--turn N | --from N --to M] [--stat]
                                                          what the session changed (default: start to now)`,
  async run(args, environment) {
    const diff = parseDiffArguments(args);
    // Imported here: the workspace's modules (diffs, snapshots) would slow every other command's start.
    const { withClient } = await import('../cli-client');
    const { printDiff } = await import('../session-diff');
    return withClient(environment, (client, store) => printDiff(client, store, diff));
  },
};
