/**
 * `durable-agent rewind | fork | diff`: the durable workspace from the command line, through the
 * `rewind` update and the `checkpoint`, `diff` and `state` queries the Temporal CLI uses too.
 * Snapshots are read from the content store (AGENT_CONTENT_DIR), as workers write them.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Client } from '@temporalio/client';
import { isGrpcNotFound } from '../temporal/grpc-not-found';
import { formatDiffStat, diffStat, unifiedDiff } from '../snapshots/unified-diff';
import { outsideChanges } from '../activities/workspace/workspace-activities';
import type { ContentStore } from '../store/content-store';
import type { AgentState, ForkPoint, RewindResult } from '../shared/contract';
import type { AgentInput } from '../shared/input';
import type { FileChange } from '../shared/workspace';
import { checkpointQuery, diffQuery, rewindUpdate, stateQuery } from '../workflows/definitions';
import { diffRange } from '../workflows/core/checkpoints';
import { storedSession } from './stored-session';
import { assertRunning, whileRunning } from './finished-session';
import { answeredInTime, QUERY_DEADLINE_MS, UsageError, withClient } from './cli-client';

type StartAndFollow = (
  environment: NodeJS.ProcessEnv,
  options: { startWorker: boolean; workflowId?: string },
  prepare: (client: Client) => Promise<{ input: AgentInput; workflowId?: string }>,
) => Promise<number>;

function parse<const Options extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: Options) {
  try {
    return parseArgs({ args, allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function turnOption(value: unknown, name = 'turn'): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value))
    throw new UsageError(`--${name} takes a turn number, not ${String(value)}`);
  return Number(value);
}

/** An update's failure as people should read it: the workflow's message, not the SDK's wrapper. */
function updateError(error: Error & { cause?: Error }): Error {
  return new Error(error.cause?.message ?? error.message);
}

/**
 * A rewind in flight when the session is reset (`temporal workflow reset`) fails in the run that
 * accepted it ("the Workflow completed before the Update completed") while the session goes on
 * in the run the reset made. Temporal applies accepted updates to that run again (unless the
 * reset excluded them): the rewind's answer is then that run's. Undefined: not a reset.
 */
async function afterReset(
  client: Client,
  workflowId: string,
  sentTo: string,
  updateId: string,
): Promise<RewindResult | undefined> {
  const now = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
  if (!now || now.status.name !== 'RUNNING' || now.runId === sentTo) return undefined;
  const reset = `${workflowId} was reset (its run ${sentTo} ended, ${now.runId} goes on) before the rewind was carried out`;
  try {
    return await client.workflow.getHandle(workflowId, now.runId).getUpdateHandle<RewindResult>(updateId).result();
  } catch (error) {
    if (isGrpcNotFound(error)) {
      throw new Error(
        `${reset}, and the reset did not apply it to the new run: nothing was rewound. Run the command again to rewind the run that goes on.`,
      );
    }
    throw new Error(`${reset}; in the new run it failed: ${updateError(error as Error & { cause?: Error }).message}`);
  }
}

export async function workspaceCommand(
  command: 'rewind' | 'diff',
  args: string[],
  environment: NodeJS.ProcessEnv,
): Promise<number> {
  if (command === 'rewind') {
    const { values, positionals } = parse(args, {
      turn: { type: 'string' },
      'conversation-only': { type: 'boolean' },
      force: { type: 'boolean' },
    });
    const [workflowId] = positionals;
    const turn = turnOption(values.turn);
    if (!workflowId || turn === undefined)
      throw new UsageError('usage: durable-agent rewind <workflow-id> --turn N [--conversation-only] [--force]');
    const files = !values['conversation-only'];
    const force = values.force === true;
    return withClient(environment, (client, store) =>
      whileRunning(client, workflowId, async () => {
        const handle = client.workflow.getHandle(workflowId);
        await assertRunning(client, workflowId);
        if (files && !force) {
          const outside = await preflight(await handle.query(stateQuery), turn, store.content);
          if (outside.length > 0) {
            console.error(
              `Rewind refused: files changed beside the session since its last snapshot:\n${outside.map((change) => `  ${change.change} ${change.path}`).join('\n')}`,
            );
            console.error(
              'Nothing was changed. Rewind with --force to overwrite them (they stay in the content store), or --conversation-only.',
            );
            return 1;
          }
        }
        const sentTo = (await handle.describe()).runId;
        const updateId = randomUUID();
        const result: RewindResult = await handle
          .executeUpdate(rewindUpdate, { args: [{ turn, files, force }], updateId })
          .catch(async (error: Error & { cause?: Error }) => {
            const inResetRun = await afterReset(client, workflowId, sentTo, updateId);
            if (!inResetRun) throw updateError(error);
            console.log(`${workflowId} was reset meanwhile; the run the reset made carried the rewind out.`);
            return inResetRun;
          });
        console.log(
          `Rewound ${workflowId} to turn ${result.turn}${files ? `: ${result.filesRestored} file(s) put back` : ' (conversation only)'}.`,
        );
        if (result.notRestored.length)
          console.log(
            `Not restored (over the snapshot size limit, content not recorded): ${result.notRestored.join(', ')}`,
          );
        if (result.previousSnapshot)
          console.log(`The files before the rewind are kept as snapshot ${result.previousSnapshot}.`);
        return 0;
      }),
    );
  }

  const { values, positionals } = parse(args, {
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
  return withClient(environment, async (client, opened) => {
    const store = opened.content;
    const request = { ...(fromTurn !== undefined ? { fromTurn } : {}), ...(toTurn !== undefined ? { toTurn } : {}) };
    const handle = client.workflow.getHandle(workflowId);
    // A closed session's snapshots are in the store: no worker needed to replay it.
    const stored = await storedSession(handle, opened);
    const asked = [toTurn, turn === undefined ? fromTurn : undefined].filter((value) => value !== undefined);
    const turns = stored ? stored.result.turnCount : () => answeredInTime(client, () => handle.query(stateQuery));
    if (asked.length) await checkTurnsExist(workflowId, Math.max(...asked), turns);
    const range = stored
      ? diffRange({ checkpoints: [], snapshots: stored.snapshots }, request)
      : await answeredInTime(client, () => handle.query(diffQuery, request));
    if (!range) {
      const { taskQueue } = await handle.describe();
      throw new Error(
        `no worker answered within ${QUERY_DEADLINE_MS / 1000} s (is one polling "${taskQueue}"?), and ${workflowId} has not ended with its snapshots stored: start a worker (npm run worker)`,
      );
    }
    const text = values.stat
      ? formatDiffStat(await diffStat(store, range.fromRef, range.toRef))
      : await unifiedDiff(store, range.fromRef, range.toRef);
    process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
    return 0;
  });
}

/**
 * A turn the session has not reached would diff its last snapshot with itself: an empty diff
 * that looks like "nothing changed". `turns`: the session's turn count, or how to ask for it
 * (unanswered: the diff query, which needs the same worker, says so next).
 */
async function checkTurnsExist(
  workflowId: string,
  highest: number,
  turns: number | (() => Promise<AgentState | undefined>),
): Promise<void> {
  const reached = typeof turns === 'number' ? turns : (await turns())?.turn;
  if (reached !== undefined && highest > reached) {
    const where = typeof turns === 'number' ? 'ended after' : 'is at';
    throw new Error(`turn ${highest} does not exist: ${workflowId} ${where} turn ${reached}`);
  }
}

/**
 * The refusal before the update is sent (so it never enters history), when this host can see the
 * workdir and no tool is changing it right now; the workflow checks again in any case.
 */
async function preflight(state: AgentState, turn: number, store: ContentStore): Promise<FileChange[]> {
  const target = [...state.snapshots].reverse().find((snapshot) => snapshot.turn <= turn);
  const expected = state.snapshots.at(-1);
  if (!state.workdir || !target || !expected || state.status === 'running_tools' || !existsSync(state.workdir))
    return [];
  return outsideChanges(store, state.workdir, expected.ref, target.ref).catch(() => []);
}

export async function forkCommand(
  args: string[],
  environment: NodeJS.ProcessEnv,
  startAndFollow: StartAndFollow,
): Promise<number> {
  const { values, positionals } = parse(args, {
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
  const instruction = words.join(' ').trim() || 'Continue the task from this point.';
  return startAndFollow(
    environment,
    { startWorker: !values['no-worker'], ...(values['workflow-id'] ? { workflowId: values['workflow-id'] } : {}) },
    async (client) => {
      const point: ForkPoint = await client.workflow
        .getHandle(originalId)
        .query(checkpointQuery, { turn })
        .catch((error: Error) => {
          throw new Error(`cannot fork ${originalId} at turn ${turn}: ${error.message}`);
        });
      mkdirSync(workdir, { recursive: true });
      const { model, ...fork } = point;
      return {
        input: { prompt: instruction, workdir, model, fork: { workflowId: originalId, ...fork } },
        workflowId: `${originalId}-fork-${turn}-${Date.now().toString(36)}`,
      };
    },
  );
}
