/**
 * The activities of workdir leases: take (once, or again after a wait), keep (one long activity
 * per run that renews the lease while it heartbeats: when its worker dies it is retried
 * elsewhere; when the session's host is gone for good nothing renews it, and the lease expires),
 * release (when the session closes).
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors';
import { type HeldWorkdirLease, LEASE_KEEPER_HEARTBEAT_INTERVAL_MS, type TakeWorkdirLeaseInput, type TakeWorkdirLeaseOutput } from '../../shared/workdir-lease';
import { whileHeartbeating } from '../heartbeat';
import type { WorkdirLeases } from '../store/workdir-leases';
import { realDirectory } from '../../workdir/real-directory';

export interface WorkdirLeaseDependencies {
  leases: WorkdirLeases;
  /** `AGENT_HOST_ID`: one path on two hosts is two workdirs. */
  hostId?: string;
  /** `AGENT_WORKDIR_LEASE_MS`. */
  leaseMs: number;
}

export function createWorkdirLeaseActivities({ leases, hostId, leaseMs }: WorkdirLeaseDependencies) {
  return {
    async takeWorkdirLease({ workdir, holder }: TakeWorkdirLeaseInput): Promise<TakeWorkdirLeaseOutput> {
      // Keyed by the real path: two spellings of one directory are one workdir.
      const real = await realDirectory(workdir);
      if ('problem' in real) throw ApplicationFailure.nonRetryable(`workdir ${workdir} ${real.problem}`, ErrorType.InvalidWorkdir);
      const key = `${hostId ?? ''}:${real.path}`;
      const outcome = await leases.take(key, holder, leaseMs);
      if (outcome.taken) return { taken: true, key };
      return { taken: false, key, holder: outcome.holder.workflowId, expiresAt: new Date(outcome.expiresAt).toISOString() };
    },

    /**
     * Renews the lease every third of its length until cancelled (the run ended) or released (the
     * session closed: its cancellation reaches a keeper only at its next heartbeat, and renewing
     * then must not report a lost lease); fails when another session took it over.
     */
    async keepWorkdirLease({ key, holder }: HeldWorkdirLease): Promise<void> {
      const context = Context.current();
      await whileHeartbeating(async () => {
        for (;;) {
          const renewed = await leases.renew(key, holder, leaseMs);
          if (renewed === 'released') return;
          if (renewed === 'lost') {
            throw ApplicationFailure.nonRetryable(`the lease of ${key} is no longer this session's: it expired and another session took it`, ErrorType.WorkdirLeaseLost);
          }
          await context.sleep(leaseMs / 3);
        }
      }, undefined, LEASE_KEEPER_HEARTBEAT_INTERVAL_MS);
    },

    async releaseWorkdirLease({ key, holder }: HeldWorkdirLease): Promise<void> {
      await leases.release(key, holder);
    },
  };
}
