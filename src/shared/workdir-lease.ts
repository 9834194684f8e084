/**
 * One session per workdir: what the workflow and the lease activities exchange, and the waits.
 * Plain JSON, like all activity I/O. The lease itself lives in the store (workdir-leases.ts).
 */

import { hostTaskQueue } from './contract';

/**
 * The queue of the lease keepers (`<queue>/leases`, `<queue>@<host>/leases`): a keeper runs as
 * long as its session, so keepers get a worker of their own with room for thousands of them
 * (on the shared queues they would take every activity slot and starve the sessions' own calls).
 */
export function leaseTaskQueue(taskQueue: string, hostId: string | undefined): string {
  return `${hostId ? hostTaskQueue(taskQueue, hostId) : taskQueue}/leases`;
}

/** Keepers one worker runs at once: each only sleeps and renews now and then. */
export const MAX_LEASE_KEEPERS = 10_000;

/** `AGENT_WORKDIR_LEASE_MS` unset: a lease not renewed for this long may be taken over. */
export const DEFAULT_WORKDIR_LEASE_MS = 180_000;
/** Below this, a keeper retried after its worker died (its heartbeat timeout) could come too late. */
export const MIN_WORKDIR_LEASE_MS = 60_000;
/** A keeper's heartbeat timeout: a dead worker's keeper is retried elsewhere within it. */
export const LEASE_KEEPER_HEARTBEAT_TIMEOUT_MS = 30_000;
/** How often a keeper's heartbeats reach the server (most of them are only local). */
export const LEASE_KEEPER_HEARTBEAT_THROTTLE_MS = 10_000;
/**
 * How often a keeper heartbeats at all: half the throttle, so one reaches the server every
 * throttle interval. Not the other calls' quarter second: a worker with 1,000 sessions in flight
 * would make 4,000 heartbeat calls a second for keepers that only sleep.
 */
export const LEASE_KEEPER_HEARTBEAT_INTERVAL_MS = LEASE_KEEPER_HEARTBEAT_THROTTLE_MS / 2;

/** A session waiting for a busy workdir tries again after 1 s, then twice as long each time, up to a minute. */
export const WORKDIR_WAIT_FIRST_MS = 1_000;
export const WORKDIR_WAIT_MAX_MS = 60_000;

/** What a second session on a busy workdir does (input `onBusyWorkdir`). */
export type OnBusyWorkdir = 'wait' | 'fail';
export const ON_BUSY_WORKDIR_VALUES = ['wait', 'fail'] as const;

/**
 * The session holding (or asking for) a lease: its workflow id and first run id, which
 * continue-as-new and reset keep, and the Temporal namespace it runs in (where a session that
 * finds the lease busy asks whether it still runs; absent on leases taken before it was recorded).
 */
export interface WorkdirLeaseHolder {
  workflowId: string;
  firstRunId: string;
  namespace?: string;
}

export interface TakeWorkdirLeaseInput {
  /** The session's workdir as prepared (real path); the lease is keyed by it and the worker's host. */
  workdir: string;
  holder: WorkdirLeaseHolder;
  /** Held until the session ends (see `HeldWorkdirLease.until`); absent: for `AGENT_WORKDIR_LEASE_MS`, renewed by a keeper. */
  untilSessionEnd?: true;
}

export type TakeWorkdirLeaseOutput =
  /** `until`: echoed when the lease is held until the session ends (a worker from before renewed leases only). */
  | { taken: true; key: string; until?: 'session_end' }
  /**
   * Busy: `holder` is the workflow id of the session that has it, running as far as Temporal
   * says (or Temporal could not tell: `unverified` says why); `expiresAt` (ISO): when a lease
   * renewed by a keeper runs out unless renewed (absent: it lasts until its session ends).
   */
  | { taken: false; key: string; holder: string; expiresAt?: string; unverified?: string };

export interface HeldWorkdirLease {
  key: string;
  holder: WorkdirLeaseHolder;
  /**
   * `session_end`: held until the session releases it (at its close, or when it moves to another
   * host) or ends, and never renewed: a session that finds it busy asks Temporal whether its
   * holder still runs. Absent on leases taken before: one keeper activity per run renews those.
   */
  until?: 'session_end';
}

/** What `prepareSession` is asked to take for the workdir it prepares (a session-long lease). */
export interface WorkdirLeaseRequest {
  holder: WorkdirLeaseHolder;
}

/**
 * How long a session-long lease lasts in the store: nothing renews it, and it ends when its
 * session releases it or is found ended (Temporal is asked). Ten years stands for "no expiry" in
 * both stores (a number of milliseconds, like every other lease).
 */
export const SESSION_LONG_LEASE_MS = 10 * 365 * 24 * 60 * 60_000;
