/**
 * One session per workdir. A new `workdir` session's `prepareSession` takes its workdir's lease,
 * held until the session ends: released when it closes (by `closeSession`) or moves to another
 * host, and free once Temporal says it has ended (a terminated or failed session). Nothing renews
 * it, so a session costs the server nothing for it while it runs. When another session holds it,
 * the new one waits on durable timers and asks again (status `waiting_workdir`), or fails naming
 * the holder, as input `onBusyWorkdir` says.
 *
 * Sessions started before that (no `WORKDIR_LEASE_UNTIL_END_PATCH` marker) took a renewed lease
 * once prepared and kept it with one keeper activity per run; they replay, and go on, that way.
 *
 * Not for sub-agents (they work in their parent's workdir, under its lease) nor `repo` sessions
 * (each works in a clone of its own). The patches are asked only where a lease applies.
 */
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { PrepareSessionOutput } from '../../shared/activity-io';
import { hostTaskQueue } from '../../shared/contract';
import { ErrorType } from '../../shared/errors';
import type { ResolvedAgentInput } from '../../shared/input';
import {
  type HeldWorkdirLease,
  leaseTaskQueue,
  type TakeWorkdirLeaseOutput,
  WORKDIR_WAIT_FIRST_MS,
  WORKDIR_WAIT_MAX_MS,
  type WorkdirLeaseHolder,
  type WorkdirLeaseRequest,
} from '../../shared/workdir-lease';
import { keepWorkdirLease, releaseWorkdirLease, takeWorkdirLease } from '../activity-options';
import { failureMessage } from '../core/failures';
import { WORKDIR_LEASE_PATCH, WORKDIR_LEASE_UNTIL_END_PATCH } from '../core/features';

/**
 * The host's queue (none: the shared one), with no schedule-to-start timeout: a lease call
 * waiting for a lost host is not a host loss to act on (prepare.ts's `onHost` would make it one).
 */
function onHost(host: string | undefined): { taskQueue?: string } {
  return host ? { taskQueue: hostTaskQueue(workflowInfo().taskQueue, host) } : {};
}

/** Shows that the session waits for the session `detail` names, or (null) no longer waits. */
export type ShowWorkdirWait = (detail: string | null) => void;

/** This session as a lease's holder: across its runs (continue-as-new, reset), in its namespace. */
function thisSession(): WorkdirLeaseHolder {
  const { workflowId, firstExecutionRunId, namespace } = workflowInfo();
  return { workflowId, firstRunId: firstExecutionRunId, namespace };
}

/** What `prepareSession` is asked to take: the workdir's lease until the session ends (none where leases do not apply). */
export function workdirLeaseRequest(input: ResolvedAgentInput): WorkdirLeaseRequest | undefined {
  if (input.parentSession || input.repo || !patched(WORKDIR_LEASE_UNTIL_END_PATCH)) return undefined;
  return { holder: thisSession() };
}

/**
 * The prepared workdir's lease: the one `prepareSession` took (or found busy) when it was asked
 * to, else (sessions from before) one taken now. Waits for it or fails as the input says.
 */
export async function leaseWorkdir(
  input: ResolvedAgentInput,
  prepared: PrepareSessionOutput,
  request: WorkdirLeaseRequest | undefined,
  show: ShowWorkdirWait,
): Promise<HeldWorkdirLease | undefined> {
  if (!request && (input.parentSession || input.repo || !patched(WORKDIR_LEASE_PATCH))) return undefined;
  const holder = request?.holder ?? thisSession();
  const take = () =>
    takeWorkdirLease.executeWithOptions({ ...onHost(prepared.host), summary: 'lease workdir' }, [
      { workdir: prepared.workdir, holder, ...(request ? { untilSessionEnd: true as const } : {}) },
    ]);
  // A worker from before session-long leases prepared without taking one: taken here.
  let outcome = (request && prepared.workdirLeaseTaken) || (await take());
  let waitMs = WORKDIR_WAIT_FIRST_MS;
  let shownHolder: string | undefined;
  try {
    for (;;) {
      if (outcome.taken) return { key: outcome.key, holder, ...(outcome.until ? { until: outcome.until } : {}) };
      const busy = `workdir ${prepared.workdir} is in use by session ${outcome.holder} ${heldUntil(outcome)}`;
      if (input.onBusyWorkdir === 'fail')
        throw ApplicationFailure.nonRetryable(
          `${busy}; start with onBusyWorkdir "wait" to wait for it`,
          ErrorType.WorkdirBusy,
        );
      if (shownHolder !== outcome.holder) show(`${busy}: waiting for it`);
      shownHolder = outcome.holder;
      await sleep(waitMs);
      waitMs = Math.min(waitMs * 2, WORKDIR_WAIT_MAX_MS);
      outcome = await take();
    }
  } finally {
    if (shownHolder) show(null);
  }
}

/** How long the busy lease lasts, in words. */
function heldUntil(busy: Extract<TakeWorkdirLeaseOutput, { taken: false }>): string {
  const until = busy.expiresAt ? `(its lease runs until ${busy.expiresAt} unless renewed)` : '(until it ends)';
  return busy.unverified ? `${until}, as far as is known: ${busy.unverified}` : until;
}

/**
 * The lease a session holds. A session-long one is released by the session's close (`forClose`),
 * by `release`, or when the session moves to another host (`moved`). One from before is kept by a
 * keeper activity while the run lasts, and released by an activity of its own.
 */
export class HeldLease {
  private keeper: CancellationScope | undefined;
  private releasedByClose = false;

  constructor(
    private lease: HeldWorkdirLease | undefined,
    private readonly host: string | undefined,
  ) {}

  /** The prepared session's lease (if it has one), being renewed from now on if it is renewed at all. */
  static kept(prepared: PrepareSessionOutput, lost: (detail: string) => void): HeldLease {
    const held = new HeldLease(prepared.workdirLease, prepared.host);
    held.keep(lost);
    return held;
  }

  /** Starts renewing a lease from before; `lost` hears when another session took it over (this one was not renewing it). */
  keep(lost: (detail: string) => void): void {
    const lease = this.lease;
    if (!lease || lease.until === 'session_end') return;
    this.keeper = new CancellationScope();
    const options = { taskQueue: leaseTaskQueue(workflowInfo().taskQueue, this.host), summary: 'keep workdir lease' };
    this.keeper
      .run(() => keepWorkdirLease.executeWithOptions(options, [lease]))
      .catch((error: unknown) => {
        if (!isCancellation(error)) lost(failureMessage(error));
      });
  }

  /** What `closeSession` releases: a session-long lease (one from before has its own activity, `release`). */
  forClose(): { workdirLease?: HeldWorkdirLease } {
    if (this.lease?.until !== 'session_end') return {};
    this.releasedByClose = true;
    return { workdirLease: this.lease };
  }

  /**
   * The session now works on another host: a session-long lease of the workdir it left is let go
   * (a lease from before expires unrenewed, as its keeper's host is gone). The new workdir is not
   * leased: its files were written there by the move.
   */
  async releaseForMove(): Promise<void> {
    const previous = this.lease;
    if (previous?.until !== 'session_end') return;
    this.lease = undefined;
    await releaseOnSharedQueue(previous);
  }

  /** Frees the workdir for the next session (best effort: a session-long lease is free once its session ended, one from before expires). */
  async release(): Promise<void> {
    const lease = this.lease;
    if (!lease || this.releasedByClose) return;
    this.keeper?.cancel();
    await releaseOnSharedQueue(lease);
  }
}

/** On the shared queue: any worker reaches the store, also when the session's host is gone. */
function releaseOnSharedQueue(lease: HeldWorkdirLease): Promise<void> {
  return CancellationScope.nonCancellable(() =>
    releaseWorkdirLease.executeWithOptions({ summary: 'release workdir lease' }, [lease]),
  ).catch(() => undefined);
}
