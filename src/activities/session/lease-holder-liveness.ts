/**
 * Whether the session holding a workdir lease still runs, as Temporal says: a lease held until its
 * session ends is never renewed, so a session that finds it busy asks instead of waiting for an
 * expiry. Only a sure answer frees the workdir; anything Temporal cannot confirm keeps it busy.
 */
import { Context } from '@temporalio/activity';
import { temporal } from '@temporalio/proto';
import { isGrpcNotFound } from '../../temporal/grpc-not-found';
import type { LeaseHolder } from '../../store/workdir-leases';

/** `ended`: the holder's runs are all closed, so nothing works in the workdir under its lease. */
export type HolderLiveness = { ended: true } | { ended: false; unverified?: string };

/** What describing a workflow id says: its latest run's status and the first run of its chain, or that it is unknown. */
export type DescribedRun = { running: boolean; firstRunId: string } | 'not_found';

/** Describes the latest run of `workflowId` in `namespace` (the worker's client; tests pass their own). */
export type DescribeLatestRun = (namespace: string, workflowId: string) => Promise<DescribedRun>;

/** The activity's own client (the worker's connection): one DescribeWorkflowExecution. */
export const describeWithWorkerClient: DescribeLatestRun = async (namespace, workflowId) => {
  try {
    const { workflowExecutionInfo } = await Context.current().client.workflowService.describeWorkflowExecution({
      namespace,
      execution: { workflowId },
    });
    return {
      running:
        workflowExecutionInfo?.status ===
        temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
      firstRunId: workflowExecutionInfo?.firstRunId ?? '',
    };
  } catch (error) {
    if (isGrpcNotFound(error)) return 'not_found';
    throw error;
  }
};

/**
 * Asks Temporal about `holder` in the namespace it recorded (a lease taken before namespaces were
 * recorded: the asker's own, where only an answer about the holder's own chain counts). A chain
 * is the holder's when its first run is the holder's (an empty first run id, from an older
 * server, is taken as the holder's: only "closed" then frees the lease, which is true whichever
 * chain it is, as one workflow id has one running chain at most).
 */
export async function holderLiveness(
  holder: LeaseHolder,
  ownNamespace: string,
  describe: DescribeLatestRun,
): Promise<HolderLiveness> {
  const recorded = holder.namespace !== undefined;
  const namespace = holder.namespace ?? ownNamespace;
  let described: DescribedRun;
  try {
    described = await describe(namespace, holder.workflowId);
  } catch (error) {
    return { ended: false, unverified: `asking Temporal about it failed: ${(error as Error).message}` };
  }
  if (described === 'not_found') {
    // In its own namespace, an unknown id has ended (and its history is gone); elsewhere it may run in another.
    return recorded
      ? { ended: true }
      : { ended: false, unverified: `Temporal does not know it in namespace ${namespace}` };
  }
  const sameChain = described.firstRunId === '' || described.firstRunId === holder.firstRunId;
  if (!sameChain && !recorded)
    return { ended: false, unverified: `another session with that id runs in namespace ${namespace}` };
  // Closed: its chain has ended. Running but another chain: the id was reused, so the holder's has ended.
  return described.running && sameChain ? { ended: false } : { ended: true };
}
