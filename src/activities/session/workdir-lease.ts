/**
 * The activities of workdir leases: take (once, or again after a wait; `prepareSession` takes a
 * new session's first), release (when the session closes or moves), and keep (one long activity
 * per run of a session started before leases lasted until their session ended: it renews the
 * lease while it heartbeats). A lease found busy is taken over when Temporal says its holder has
 * ended (lease-holder-liveness.ts): a terminated or failed session frees its workdir at once.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors';
import {
  type HeldWorkdirLease,
  LEASE_KEEPER_HEARTBEAT_INTERVAL_MS,
  SESSION_LONG_LEASE_MS,
  type TakeWorkdirLeaseInput,
  type TakeWorkdirLeaseOutput,
  type WorkdirLeaseHolder,
} from '../../shared/workdir-lease';
import { whileHeartbeating } from '../heartbeat';
import type { WorkdirLeases } from '../../store/workdir-leases';
import { realDirectory } from '../../workdir/real-directory';
import { type DescribeLatestRun, describeWithWorkerClient, holderLiveness } from './lease-holder-liveness';

export interface WorkdirLeaseDependencies {
  leases: WorkdirLeases;
  /** `AGENT_HOST_ID`: one path on two hosts is two workdirs. */
  hostId?: string;
  /** `AGENT_WORKDIR_LEASE_MS`: the length of leases a keeper renews. */
  leaseMs: number;
  /** How a holder is looked up in Temporal (default: the worker's client). */
  describe?: DescribeLatestRun;
}

/** The store's key of a workdir: its host and real path (two spellings of one directory are one workdir). */
export const leaseKey = (hostId: string | undefined, realPath: string) => `${hostId ?? ''}:${realPath}`;

/**
 * Takes the lease of `key` for `holder`; when another session has it, asks Temporal whether that
 * one still runs and takes it over if not. `untilSessionEnd`: held until released, never renewed.
 */
export async function takeLease(
  {
    leases,
    leaseMs,
    describe = describeWithWorkerClient,
  }: Pick<WorkdirLeaseDependencies, 'leases' | 'leaseMs' | 'describe'>,
  key: string,
  holder: WorkdirLeaseHolder,
  untilSessionEnd: boolean,
): Promise<TakeWorkdirLeaseOutput> {
  const ttlMs = untilSessionEnd ? SESSION_LONG_LEASE_MS : leaseMs;
  const taken = { taken: true as const, key, ...(untilSessionEnd ? { until: 'session_end' as const } : {}) };
  let outcome = await leases.take(key, holder, ttlMs);
  if (outcome.taken) return taken;
  const liveness = await holderLiveness(
    outcome.holder,
    Context.current().info.workflowNamespace ?? 'default',
    describe,
  );
  if (liveness.ended) {
    outcome = await leases.takeOver(key, outcome.holder, holder, ttlMs);
    if (outcome.taken) return taken;
  }
  // A renewed lease says when it runs out; a session-long one lasts until its session ends.
  const renewed = outcome.expiresAt - Date.now() < SESSION_LONG_LEASE_MS / 2;
  return {
    taken: false,
    key,
    holder: outcome.holder.workflowId,
    ...(renewed ? { expiresAt: new Date(outcome.expiresAt).toISOString() } : {}),
    ...(!liveness.ended && liveness.unverified ? { unverified: liveness.unverified } : {}),
  };
}

export function createWorkdirLeaseActivities(dependencies: WorkdirLeaseDependencies) {
  const { leases, hostId, leaseMs } = dependencies;
  return {
    async takeWorkdirLease({
      workdir,
      holder,
      untilSessionEnd,
    }: TakeWorkdirLeaseInput): Promise<TakeWorkdirLeaseOutput> {
      const real = await realDirectory(workdir);
      if ('problem' in real)
        throw ApplicationFailure.nonRetryable(`workdir ${workdir} ${real.problem}`, ErrorType.InvalidWorkdir);
      return takeLease(dependencies, leaseKey(hostId, real.path), holder, untilSessionEnd === true);
    },

    /**
     * Renews the lease every third of its length until cancelled (the run ended) or released (the
     * session closed: its cancellation reaches a keeper only at its next heartbeat, and renewing
     * then must not report a lost lease); fails when another session took it over.
     */
    async keepWorkdirLease({ key, holder }: HeldWorkdirLease): Promise<void> {
      const context = Context.current();
      await whileHeartbeating(
        async () => {
          for (;;) {
            const renewed = await leases.renew(key, holder, leaseMs);
            if (renewed === 'released') return;
            if (renewed === 'lost') {
              throw ApplicationFailure.nonRetryable(
                `the lease of ${key} is no longer this session's: another session took it (it had expired, or Temporal said this session had ended)`,
                ErrorType.WorkdirLeaseLost,
              );
            }
            await context.sleep(leaseMs / 3);
          }
        },
        undefined,
        LEASE_KEEPER_HEARTBEAT_INTERVAL_MS,
      );
    },

    async releaseWorkdirLease({ key, holder }: HeldWorkdirLease): Promise<void> {
      await leases.release(key, holder);
    },
  };
}
