/**
 * How a new session is prepared, and where: a fork's files first (they must be in its workdir
 * before it is prepared there), then `prepareSession` — on the shared queue, or on the host the
 * input pins (`host`) or the fork's files were written on, whose queue then gets every workspace
 * activity of the session.
 */
import { upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { PrepareSessionOutput } from '../shared/activity-io';
import { hostTaskQueue } from '../shared/contract';
import type { ForkInput, ResolvedAgentInput } from '../shared/input';
import { AGENT_FORKED_FROM } from '../shared/search-attributes';
import { prepareSession, SESSION_OPTIONS } from './activity-options';
import { forkPrompt } from './checkpoints';
import type { SessionWorkspace } from './workspace';

/** Activity options that send a call to `host`'s queue (none: the shared queue). */
export function onHost(host: string | undefined): { taskQueue?: string } {
  return host ? { taskQueue: hostTaskQueue(workflowInfo().taskQueue, host) } : {};
}

export async function prepareNewSession(input: ResolvedAgentInput, fork: ForkInput | undefined, workspace: SessionWorkspace): Promise<PrepareSessionOutput> {
  let host = input.host;
  if (fork) {
    // Linked both ways: the fork names its original (memo), the original finds its forks
    // (`AgentForkedFrom='<id>'`), however the fork was started (our CLI or the Temporal CLI).
    upsertMemo({ forkedFrom: { workflowId: fork.workflowId, turn: fork.turn } });
    upsertSearchAttributes([{ key: AGENT_FORKED_FROM, value: fork.workflowId }]);
    host = (await workspace.materialize(input.workdir, fork.snapshotRef, onHost(host))) ?? host;
  }
  return prepareSession.executeWithOptions({ ...SESSION_OPTIONS, ...onHost(host), summary: 'prepare session' }, [
    {
      workdir: input.workdir,
      model: input.model ?? fork?.model,
      allowedTools: input.allowedTools,
      systemPromptAppend: input.systemPrompt,
      prompt: fork ? forkPrompt(fork, input.workdir, input.prompt) : input.prompt,
      startedAt: new Date(workflowInfo().startTime).toISOString(),
      ...(input.trustRepoHooks ? { trustRepoHooks: true } : {}),
    },
  ]);
}
