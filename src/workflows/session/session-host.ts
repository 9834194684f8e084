/**
 * Where a session's workspace lives, and what happens when that host is lost (host-loss.ts).
 * Every workspace activity goes through `call`, which on a lost host:
 * - moves a `repo` session: another host clones the repository at the session's base commit and
 *   puts back its last snapshot, the session is prepared there again, the transition
 *   `workspace_moved` is shown, and the call is made again there. The snapshot holds the effects
 *   of every call that completed; the lost call's effects died with its host. None is lost or doubled.
 * - makes a `workdir` session wait (status `waiting_host`) until the host is back (the call is
 *   then made again, as a retry) or the update `move` names another host (its last snapshot is
 *   written there first).
 * Several calls that find the host lost at once (a batch of reads) share one move.
 */
import {
  type ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PrepareSessionOutput } from '../../shared/activity-io';
import type { MoveRequest, MoveResult } from '../../shared/contract';
import { ErrorType } from '../../shared/errors';
import type { ResolvedAgentInput } from '../../shared/input';
import { agentTypesToPrepare } from '../../shared/sub-agents';
import { type BranchResult, cloneName } from '../../shared/repository';
import { AGENT_HOST } from '../../shared/search-attributes';
import {
  cloneRepository,
  commitBranch,
  materializeSnapshot,
  prepareSession,
  probeHost,
  PROBE_OPTIONS,
  PROBE_WAIT_MS,
  REPOSITORY_OPTIONS,
  SESSION_OPTIONS,
  WORKSPACE_OPTIONS,
} from '../activity-options';
import { failureMessage } from '../core/failures';
import { isHostLoss, startedBeforeLoss } from '../core/host-loss';
import { onHost, promptToPrepare } from './prepare';

/** What the host binding needs of its session. */
export interface HostedSession {
  readonly input: ResolvedAgentInput;
  prepared(): PrepareSessionOutput;
  /** The session's last snapshot (what a move puts back) and its first (a fresh clone's files). */
  snapshots(): { first?: string; last?: { turn: number; ref: string } };
  /** The files now live on another host: prepared there as `next`. */
  moved(next: PrepareSessionOutput, detail: string): void;
  /** The session left its workdir for another host's: what it leased there is let go. */
  leftWorkdir(): Promise<void>;
  /** Shows (or no longer shows) that the session waits for its lost host; the loop's own status is left as it is. */
  showWaiting(lostHost: string | null): void;
}

/** What a call is told when it is made again after its host was lost. */
export interface CallRetry {
  /** The call had started on the lost host (activity `activityId`): it may have had effects. `moved`: the session moved since. */
  resumed?: { activityId: string; moved: boolean };
}

/** A host id as `AGENT_HOST_ID` takes it. */
const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

type MoveOutcome = { ok: MoveResult } | { error: string };

/** A move to another host is attempted this many times (a worker of the lost host refuses it). */
const MOVE_ATTEMPTS = 20;

export class SessionHost {
  private moving: Promise<void> | undefined;
  private waitingFor: string | null = null;
  private requested: { request: MoveRequest; ticket: number } | null = null;
  private tickets = 0;
  private readonly outcomes = new Map<number, MoveOutcome>();

  constructor(private readonly session: HostedSession) {}

  /** Options that send a workspace activity to the session's host (none: the shared queue). */
  options(): { taskQueue?: string; scheduleToStartTimeout?: number } {
    return onHost(this.session.prepared().host, this.session.input.hostLossTimeoutMs);
  }

  /**
   * Runs a workspace activity on the session's host, and again wherever the session goes if that
   * host is lost. The move (or the wait) is shared by the calls that find the host lost, and runs
   * to its end whatever happens to them; each caller stops waiting for it when it is cancelled.
   */
  async call<T>(run: (where: ReturnType<SessionHost['options']>, retry: CallRetry) => Promise<T>): Promise<T> {
    let retry: CallRetry = {};
    for (;;) {
      const host = this.session.prepared().host;
      try {
        return await run(this.options(), retry);
      } catch (error) {
        if (!host || !isHostLoss(error)) throw error;
        if (this.session.prepared().host === host) {
          this.moving ??= CancellationScope.nonCancellable(() => this.hostLost(host)).finally(
            () => (this.moving = undefined),
          );
        }
        if (this.moving) await Promise.race([this.moving, CancellationScope.current().cancelRequested]);
        const lostCall = startedBeforeLoss(error) ? (error as ActivityFailure).activityId : undefined;
        retry = lostCall ? { resumed: { activityId: lostCall, moved: this.session.prepared().host !== host } } : {};
      }
    }
  }

  /**
   * A `repo` session's changes, committed to its branch and pushed (the branch at its base commit
   * when that fails): the changes between `range`'s two snapshots, those of its `filesChanged`.
   * (The references only add to the activity's input: a replay compares no activity inputs.)
   */
  async commitBranch(
    workdir: () => string,
    message: string,
    range: { fromRef: string; toRef: string } | undefined,
  ): Promise<BranchResult> {
    const repo = this.session.prepared().repo!;
    try {
      return await this.call((where) =>
        commitBranch.executeWithOptions({ ...REPOSITORY_OPTIONS, ...where, summary: `commit ${repo.branch}` }, [
          { workdir: workdir(), branch: repo.branch, message, ...range },
        ]),
      );
    } catch (error) {
      return {
        name: repo.branch,
        commit: repo.commit,
        pushed: false,
        pushError: `not committed: ${failureMessage(error)}`,
      };
    }
  }

  private hostLost(host: string): Promise<void> {
    return this.session.prepared().repo ? this.moveRepository(host) : this.waitForHost(host);
  }

  private async moveRepository(lost: string): Promise<void> {
    const repo = this.session.prepared().repo!;
    const { first, last } = this.session.snapshots();
    const moves = (repo.moves ?? 0) + 1;
    const { workflowId, firstExecutionRunId } = workflowInfo();
    const clone = await cloneRepository.executeWithOptions(
      {
        ...REPOSITORY_OPTIONS,
        retry: { ...REPOSITORY_OPTIONS.retry, maximumAttempts: MOVE_ATTEMPTS },
        summary: `host ${lost} lost · clone elsewhere`,
      },
      [
        {
          name: cloneName(workflowId, firstExecutionRunId, moves),
          // The branch the session was prepared with, whatever today's rules would derive from its id.
          branch: repo.branch,
          url: repo.url,
          move: {
            commit: repo.commit,
            lostHost: lost,
            ...(last ? { snapshotRef: last.ref } : {}),
            ...(first ? { baseRef: first } : {}),
          },
        },
      ],
    );
    const files = last ? `the files of turn ${last.turn}` : 'the files of its start';
    await this.prepareOn(
      clone.host,
      clone.workdir,
      `host ${lost} was lost; ${clone.host ?? 'another worker'} cloned the repository and put back ${files} in ${clone.workdir}`,
      { ...repo, moves },
    );
  }

  /** Prepares the session again where its files now are (the system prompt names the new workdir). */
  private async prepareOn(
    host: string | undefined,
    workdir: string,
    detail: string,
    repo = this.session.prepared().repo,
  ): Promise<void> {
    const current = this.session.prepared();
    const input = this.session.input;
    const prepared = await prepareSession.executeWithOptions(
      { ...SESSION_OPTIONS, ...onHost(host, input.hostLossTimeoutMs), summary: 'prepare session (moved)' },
      [
        {
          workdir,
          model: current.model,
          allowedTools: input.allowedTools,
          systemPromptAppend: input.systemPrompt,
          ...promptToPrepare(input),
          startedAt: new Date(workflowInfo().startTime).toISOString(),
          ...(input.trustRepoHooks ? { trustRepoHooks: true } : {}),
          ...(input.skippedHooks?.length ? { skippedInputHooks: input.skippedHooks } : {}),
          ...agentTypesToPrepare(input.agents),
        },
      ],
    );
    const next: PrepareSessionOutput = {
      ...prepared,
      model: current.model,
      prompt: current.prompt,
      ...(repo ? { repo } : {}),
    };
    if (next.host) upsertSearchAttributes([{ key: AGENT_HOST, value: next.host }]);
    this.session.moved(next, detail);
  }

  /**
   * Waits until the host is back or a move is asked for and done. One probe waits in the host's
   * queue (for a day at a time, so a long wait adds little history) and answers as soon as a
   * worker of the host polls again.
   */
  private async waitForHost(lost: string): Promise<void> {
    this.waitingFor = lost;
    this.session.showWaiting(lost);
    try {
      for (;;) {
        const scope = new CancellationScope();
        let next: 'back' | 'lost' | 'failed' | 'move';
        try {
          next = await scope.run(() =>
            Promise.race([
              probeHost
                .executeWithOptions(
                  { ...PROBE_OPTIONS, ...onHost(lost, PROBE_WAIT_MS), summary: `wait for host ${lost}` },
                  [],
                )
                .then(
                  () => 'back' as const,
                  (error) =>
                    isCancellation(error)
                      ? Promise.reject(error)
                      : isHostLoss(error)
                        ? ('lost' as const)
                        : ('failed' as const),
                ),
              condition(() => this.requested !== null).then(() => 'move' as const),
            ]),
          );
        } finally {
          scope.cancel();
        }
        if (next === 'back') return;
        if (next === 'move' && (await this.carryOutMove())) return;
        // A probe that failed otherwise (its host busy past its timeout): ask again a little later.
        if (next === 'failed') await sleep(this.session.input.hostLossTimeoutMs);
      }
    } finally {
      // A move asked for just as the host came back is not made.
      if (this.requested)
        this.outcomes.set(this.requested.ticket, {
          error: `The session no longer waits for ${lost}: it was not moved.`,
        });
      this.requested = null;
      this.waitingFor = null;
      this.session.showWaiting(null);
    }
  }

  private async carryOutMove(): Promise<boolean> {
    const { request, ticket } = this.requested!;
    this.requested = null;
    const last = this.session.snapshots().last!;
    const workdir = request.workdir ?? this.session.prepared().workdir;
    const lost = this.waitingFor;
    try {
      const where = onHost(request.host, this.session.input.hostLossTimeoutMs);
      const written = await materializeSnapshot.executeWithOptions(
        { ...WORKSPACE_OPTIONS, ...where, summary: `move to ${request.host} · files` },
        [{ workdir, ref: last.ref }],
      );
      if (written.host !== request.host)
        throw new Error(`the files were written by a worker of ${written.host ?? 'no host'}`);
      await this.prepareOn(
        request.host,
        workdir,
        `host ${lost} was lost; moved to ${request.host} with the files of turn ${last.turn} in ${workdir}`,
      );
      await this.session.leftWorkdir();
      this.outcomes.set(ticket, {
        ok: { host: request.host, workdir: this.session.prepared().workdir, turn: last.turn },
      });
      return true;
    } catch (error) {
      const message = isHostLoss(error)
        ? `no worker of host ${request.host} picked up the move`
        : failureMessage(error);
      this.outcomes.set(ticket, {
        error: `The session could not move to ${request.host}: ${message}. It still waits for ${lost}.`,
      });
      return false;
    }
  }

  /** The `move` update's validator: refuses before the update enters history. */
  validateMove(request: MoveRequest): void {
    if (this.waitingFor === null)
      throw new Error('the session is not waiting for a lost host (status waiting_host): move applies only then');
    if (!HOST_ID.test(request.host)) throw new Error("host: must be a worker's AGENT_HOST_ID");
    if (request.host === this.waitingFor)
      throw new Error(
        `${request.host} is the host the session waits for: it goes on there by itself once that host is back`,
      );
    if (!this.session.snapshots().last) throw new Error('the session has no snapshot to move');
    if (this.requested) throw new Error('a move is already under way');
    if (request.workdir !== undefined && !request.workdir.startsWith('/'))
      throw new Error('workdir: must be an absolute path on the new host');
  }

  /** The `move` update: the session moves at its next wait for the lost host; returns the outcome. */
  async requestMove(request: MoveRequest): Promise<MoveResult> {
    const ticket = ++this.tickets;
    this.requested = { request, ticket };
    await condition(() => this.outcomes.has(ticket));
    const outcome = this.outcomes.get(ticket)!;
    this.outcomes.delete(ticket);
    if ('ok' in outcome) return outcome.ok;
    throw ApplicationFailure.nonRetryable(outcome.error, ErrorType.MoveFailed);
  }
}
