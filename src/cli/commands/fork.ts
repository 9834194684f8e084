/** `durable-agent fork`: a new session from turn N of another, its files written to a new directory. */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import type { ForkPoint } from '../../shared/contract';
import type { AgentInput } from '../../shared/input';
import { parseOptions, turnOption } from '../arguments';
import type { Command } from '../command';
import { UsageError } from '../usage-error';

export interface ForkArguments {
  originalId: string;
  turn: number;
  /** Absolute; new or empty. */
  workdir: string;
  instruction: string;
  startWorker: boolean;
  workflowId?: string;
}

/** The fork asked for; wrong arguments (or a workdir with files in it) throw a UsageError. */
export function parseForkArguments(args: string[]): ForkArguments {
  const { values, positionals } = parseOptions(args, {
    turn: { type: 'string' },
    workdir: { type: 'string' },
    'workflow-id': { type: 'string' },
    'no-worker': { type: 'boolean' },
  });
  const [originalId, ...words] = positionals;
  const turn = turnOption(values.turn);
  if (!originalId || turn === undefined || !values.workdir) {
    throw new UsageError('usage: durable-agent fork <workflow-id> --turn N --workdir <new dir> ["<instruction>"]');
  }
  const workdir = resolve(values.workdir);
  if (existsSync(workdir) && (!statSync(workdir).isDirectory() || readdirSync(workdir).length > 0)) {
    throw new UsageError(`--workdir ${workdir} must be a new or empty directory (the fork's files are written there)`);
  }
  return {
    originalId,
    turn,
    workdir,
    instruction: words.join(' ').trim() || 'Continue the task from this point.',
    startWorker: !values['no-worker'],
    ...(values['workflow-id'] ? { workflowId: values['workflow-id'] } : {}),
  };
}

/** The fork's input, from the original's checkpoint at the turn (asked once the client is connected). */
async function forkInput(client: Client, fork: ForkArguments): Promise<{ input: AgentInput; workflowId: string }> {
  const { checkpointQuery } = await import('../../workflows/definitions');
  const { originalId, turn, workdir, instruction } = fork;
  const point: ForkPoint = await client.workflow
    .getHandle(originalId)
    .query(checkpointQuery, { turn })
    .catch((error: Error) => {
      throw new Error(`cannot fork ${originalId} at turn ${turn}: ${error.message}`);
    });
  mkdirSync(workdir, { recursive: true });
  const { model, ...from } = point;
  return {
    input: { prompt: instruction, workdir, model, fork: { workflowId: originalId, ...from } },
    workflowId: `${originalId}-fork-${turn}-${Date.now().toString(36)}`,
  };
}

export const forkCommand: Command = {
  name: 'fork',
  usage: `  durable-agent fork <workflow-id> --turn N --workdir <new dir> ["<instruction>"] [--no-worker]
                                                          a new session from turn N, its files in <new dir>`,
  async run(args, environment) {
    const fork = parseForkArguments(args);
    const { startAndFollow } = await import('../start-and-follow');
    return startAndFollow(
      environment,
      { startWorker: fork.startWorker, ...(fork.workflowId ? { workflowId: fork.workflowId } : {}) },
      (client) => forkInput(client, fork),
    );
  },
};
