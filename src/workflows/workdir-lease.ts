/**
 * One session per workdir. A new `workdir` session takes its workdir's lease once it is prepared
 * (before its first snapshot, tool or hook); when another session holds it, it waits on durable
 * timers and asks again (status `waiting_workdir`), or fails naming the holder, as input
 * `onBusyWorkdir` says. While it runs, one keeper activity renews the lease; every run after a
 * continue-as-new starts its own (the lease is the session's, across runs). Closing releases it;
 * a session terminated, or whose host is gone, stops renewing it, and it expires.
 *
 * Not for sub-agents (they work in their parent's workdir, under its lease) nor `repo` sessions
 * (each works in a clone of its own). Sessions recorded before leases replay without them: the
 * patch is asked once, where the first lease call would be.
 */
import { ApplicationFailure, CancellationScope, isCancellation, patched, sleep, workflowInfo } from '@temporalio/workflow';
import type { PrepareSessionOutput } from '../shared/activity-io';
import { hostTaskQueue } from '../shared/contract';
import { ErrorType } from '../shared/errors';
import type { ResolvedAgentInput } from '../shared/input';
import { type HeldWorkdirLease, leaseTaskQueue, WORKDIR_WAIT_FIRST_MS, WORKDIR_WAIT_MAX_MS } from '../shared/workdir-lease';
import { keepWorkdirLease, releaseWorkdirLease, takeWorkdirLease } from './activity-options';
import { failureMessage } from './failures';

export const WORKDIR_LEASE_PATCH = 'workdir-lease';

/**
 * The host's queue (none: the shared one), with no schedule-to-start timeout: a lease call
 * waiting for a lost host is not a host loss to act on (prepare.ts's `onHost` would make it one).
 */
function onHost(host: string | undefined): { taskQueue?: string } {
  return host ? { taskQueue: hostTaskQueue(workflowInfo().taskQueue, host) } : {};
}

/** Shows that the session waits for the session `detail` names, or (null) no longer waits. */
export type ShowWorkdirWait = (detail: string | null) => void;

/** Takes the prepared workdir's lease, waiting for it or failing as the input says; none where leases do not apply. */
export async function leaseWorkdir(input: ResolvedAgentInput, prepared: PrepareSessionOutput, show: ShowWorkdirWait): Promise<HeldWorkdirLease | undefined> {
  if (input.parentSession || input.repo || !patched(WORKDIR_LEASE_PATCH)) return undefined;
  const { workflowId, firstExecutionRunId } = workflowInfo();
  const holder = { workflowId, firstRunId: firstExecutionRunId };
  let waitMs = WORKDIR_WAIT_FIRST_MS;
  let shownHolder: string | undefined;
  try {
    for (;;) {
      const outcome = await takeWorkdirLease.executeWithOptions({ ...onHost(prepared.host), summary: 'lease workdir' }, [{ workdir: prepared.workdir, holder }]);
      if (outcome.taken) return { key: outcome.key, holder };
      const busy = `workdir ${prepared.workdir} is in use by session ${outcome.holder} (its lease runs until ${outcome.expiresAt} unless renewed)`;
      if (input.onBusyWorkdir === 'fail') throw ApplicationFailure.nonRetryable(`${busy}; start with onBusyWorkdir "wait" to wait for it`, ErrorType.WorkdirBusy);
      if (shownHolder !== outcome.holder) show(`${busy}: waiting for it`);
      shownHolder = outcome.holder;
      await sleep(waitMs);
      waitMs = Math.min(waitMs * 2, WORKDIR_WAIT_MAX_MS);
    }
  } finally {
    if (shownHolder) show(null);
  }
}

/** The lease a run holds: kept by its keeper activity while the run lasts, released when the session ends. */
export class HeldLease {
  private keeper: CancellationScope | undefined;

  constructor(
    private readonly lease: HeldWorkdirLease | undefined,
    private readonly host: string | undefined,
  ) {}

  /** The prepared session's lease (if it has one), being renewed from now on. */
  static kept(prepared: PrepareSessionOutput, lost: (detail: string) => void): HeldLease {
    const held = new HeldLease(prepared.workdirLease, prepared.host);
    held.keep(lost);
    return held;
  }

  /** Starts renewing; `lost` hears when another session took the lease over (this one was not renewing it). */
  keep(lost: (detail: string) => void): void {
    const lease = this.lease;
    if (!lease) return;
    this.keeper = new CancellationScope();
    const options = { taskQueue: leaseTaskQueue(workflowInfo().taskQueue, this.host), summary: 'keep workdir lease' };
    this.keeper.run(() => keepWorkdirLease.executeWithOptions(options, [lease])).catch((error: unknown) => {
      if (!isCancellation(error)) lost(failureMessage(error));
    });
  }

  /** Frees the workdir for the next session (best effort: unreleased, the lease expires). */
  async release(): Promise<void> {
    const lease = this.lease;
    if (!lease) return;
    this.keeper?.cancel();
    // On the shared queue: any worker reaches the store, also when the session's host is gone.
    await CancellationScope.nonCancellable(() => releaseWorkdirLease.executeWithOptions({ summary: 'release workdir lease' }, [lease])).catch(() => undefined);
  }
}
