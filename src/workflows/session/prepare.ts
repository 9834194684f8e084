/**
 * How a new session is prepared, and where: a fork's files first (they must be in its workdir
 * before it is prepared there), or a `repo` session's clone; then `prepareSession` — on the shared
 * queue, or on the host the input pins (`host`), the fork's files were written on or the clone was
 * made on, whose queue then gets every workspace activity of the session.
 */
import { workflowInfo, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import type { PrepareSessionInput, PrepareSessionOutput } from '../../shared/activity-io';
import { hostTaskQueue } from '../../shared/contract';
import type { ForkInput, ResolvedAgentInput } from '../../shared/input';
import { agentTypesToPrepare } from '../../shared/sub-agents';
import { cloneName, sessionBranch } from '../../shared/repository';
import { AGENT_FORKED_FROM } from '../../shared/search-attributes';
import { cloneRepository, prepareSession, REPOSITORY_OPTIONS, SESSION_OPTIONS } from '../activity-options';
import { forkIntro, forkPrompt } from '../core/checkpoints';
import { sandboxRequest } from '../core/loop-state';
import { listMcpServers } from './mcp-servers';
import type { SessionWorkspace } from '../workspace/workspace';
import { leaseWorkdir, type ShowWorkdirWait, workdirLeaseRequest } from '../workspace/workdir-lease';

/**
 * Activity options that send a call to `host`'s queue (none: the shared queue). A call no worker
 * of the host picks up within `hostLossTimeoutMs` fails with a schedule-to-start timeout: the
 * host is lost (see host-loss.ts).
 */
export function onHost(
  host: string | undefined,
  hostLossTimeoutMs?: number,
): { taskQueue?: string; scheduleToStartTimeout?: number } {
  if (!host) return {};
  return {
    taskQueue: hostTaskQueue(workflowInfo().taskQueue, host),
    ...(hostLossTimeoutMs ? { scheduleToStartTimeout: hostLossTimeoutMs } : {}),
  };
}

export async function prepareNewSession(
  input: ResolvedAgentInput,
  fork: ForkInput | undefined,
  workspace: SessionWorkspace,
  showWorkdirWait: ShowWorkdirWait,
): Promise<PrepareSessionOutput> {
  let host = input.host;
  let workdir = input.workdir!;
  let repo: PrepareSessionOutput['repo'];
  if (fork) {
    // Linked both ways: the fork names its original (memo), the original finds its forks
    // (`AgentForkedFrom='<id>'`), however the fork was started (our CLI or the Temporal CLI).
    upsertMemo({ forkedFrom: { workflowId: fork.workflowId, turn: fork.turn } });
    upsertSearchAttributes([{ key: AGENT_FORKED_FROM, value: fork.workflowId }]);
    host = (await workspace.materialize(workdir, fork.snapshotRef, onHost(host))) ?? host;
  } else if (input.repo) {
    const { workflowId, firstExecutionRunId } = workflowInfo();
    const clone = await cloneRepository.executeWithOptions(
      { ...REPOSITORY_OPTIONS, ...onHost(host), summary: `clone ${input.repo.url}` },
      [
        {
          name: cloneName(workflowId, firstExecutionRunId, 0),
          branch: sessionBranch(workflowId),
          url: input.repo.url,
          ...(input.repo.ref ? { ref: input.repo.ref } : {}),
        },
      ],
    );
    workdir = clone.workdir;
    host = clone.host ?? host;
    repo = { url: input.repo.url, commit: clone.commit, branch: clone.branch };
  }
  // One session per workdir: the lease is taken as the workdir is prepared, before anything of
  // this session looks at its files or changes them (a session that fails for it has started no MCP server).
  const leaseRequest = workdirLeaseRequest(input);
  const prepared = await prepareSession.executeWithOptions(
    { ...SESSION_OPTIONS, ...onHost(host), summary: 'prepare session' },
    [
      {
        workdir,
        model: input.model ?? fork?.model,
        allowedTools: input.allowedTools,
        systemPromptAppend: input.systemPrompt,
        ...(fork
          ? promptToPrepare(input, (task) => forkPrompt(fork, workdir, task), forkIntro(fork, workdir))
          : promptToPrepare(input)),
        startedAt: new Date(workflowInfo().startTime).toISOString(),
        ...(input.trustRepoHooks ? { trustRepoHooks: true } : {}),
        ...(input.skippedHooks?.length ? { skippedInputHooks: input.skippedHooks } : {}),
        ...sandboxRequest(input),
        ...agentTypesToPrepare(input.agents),
        ...(leaseRequest ? { workdirLease: leaseRequest } : {}),
      },
    ],
  );
  const { workdirLeaseTaken: _kept, ...rest } = prepared;
  const workdirLease = await leaseWorkdir(input, prepared, leaseRequest, showWorkdirWait);
  // MCP servers (input, trusted `.mcp.json`) connected and listed on the session's host: see
  // mcp-tools.ts. Not for sub-agents: their tools are their type's (by default they change nothing).
  const mcp = input.parentSession
    ? undefined
    : await listMcpServers(input, prepared, onHost(prepared.host, input.hostLossTimeoutMs));
  return { ...rest, ...(repo ? { repo } : {}), ...(mcp ? { mcp } : {}), ...(workdirLease ? { workdirLease } : {}) };
}

/**
 * The task as `prepareSession` takes it: inline, or by reference (input `promptRef`), which the
 * activity loads, so a long prompt is in history only as the start input's reference.
 */
export function promptToPrepare(
  input: Pick<ResolvedAgentInput, 'prompt' | 'promptRef'>,
  wrap?: (instruction: string) => string,
  intro?: string,
): Pick<PrepareSessionInput, 'prompt' | 'promptRef' | 'promptIntro'> {
  if (input.promptRef !== undefined) return { promptRef: input.promptRef, ...(intro ? { promptIntro: intro } : {}) };
  return { prompt: wrap ? wrap(input.prompt ?? '') : (input.prompt ?? '') };
}
