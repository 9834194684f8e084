/**
 * What `durable-agent rewind` does: the `rewind` update the Temporal CLI can send too, refused
 * first here when this host sees the workdir and files changed beside the session, and followed
 * into the run a reset made when one happened meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { isGrpcNotFound } from '../temporal/grpc-not-found';
import { outsideChanges } from '../activities/workspace/workspace-activities';
import type { ContentStore } from '../store/content-store';
import type { Store } from '../store/open-store';
import type { AgentState, RewindRequest, RewindResult } from '../shared/contract';
import type { FileChange } from '../shared/workspace';
import { rewindUpdate, stateQuery } from '../workflows/definitions';
import { assertRunning, whileRunning } from './finished-session';
import { updateError } from './session-steering';

/** Rewinds the session to `request.turn` and says what it put back; 1 when refused for changed files. */
export async function rewindSession(
  client: Client,
  store: Store,
  workflowId: string,
  request: RewindRequest & { files: boolean; force: boolean },
): Promise<number> {
  return whileRunning(client, workflowId, async () => {
    const handle = client.workflow.getHandle(workflowId);
    await assertRunning(client, workflowId);
    if (request.files && !request.force) {
      const outside = await preflight(await handle.query(stateQuery), request.turn, store.content);
      if (outside.length > 0) return refuse(outside);
    }
    const result = await sendRewind(client, handle, request);
    printRewound(workflowId, result, request.files);
    return 0;
  });
}

function refuse(outside: FileChange[]): number {
  console.error(
    `Rewind refused: files changed beside the session since its last snapshot:\n${outside.map((change) => `  ${change.change} ${change.path}`).join('\n')}`,
  );
  console.error(
    'Nothing was changed. Rewind with --force to overwrite them (they stay in the content store), or --conversation-only.',
  );
  return 1;
}

async function sendRewind(client: Client, handle: WorkflowHandle, request: RewindRequest): Promise<RewindResult> {
  const sentTo = (await handle.describe()).runId;
  const updateId = randomUUID();
  return handle
    .executeUpdate(rewindUpdate, { args: [request], updateId })
    .catch(async (error: Error & { cause?: Error }) => {
      const inResetRun = await afterReset(client, handle.workflowId, sentTo, updateId);
      if (!inResetRun) throw updateError(error);
      console.log(`${handle.workflowId} was reset meanwhile; the run the reset made carried the rewind out.`);
      return inResetRun;
    });
}

function printRewound(workflowId: string, result: RewindResult, files: boolean): void {
  console.log(
    `Rewound ${workflowId} to turn ${result.turn}${files ? `: ${result.filesRestored} file(s) put back` : ' (conversation only)'}.`,
  );
  if (result.notRestored.length)
    console.log(`Not restored (over the snapshot size limit, content not recorded): ${result.notRestored.join(', ')}`);
  if (result.previousSnapshot)
    console.log(`The files before the rewind are kept as snapshot ${result.previousSnapshot}.`);
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
