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
import { ApplicationFailure, CancellationScope, condition, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { PrepareSessionOutput } from '../shared/activity-io';
import type { AgentStatus, MoveRequest, MoveResult } from '../shared/contract';
import { ErrorType } from '../shared/errors';
import type { ResolvedAgentInput } from '../shared/input';
import type { BranchResult } from '../shared/repository';
import { AGENT_HOST } from '../shared/search-attributes';
import { cloneRepository, commitBranch, materializeSnapshot, prepareSession, probeHost, PROBE_OPTIONS, REPOSITORY_OPTIONS, SESSION_OPTIONS, WORKSPACE_OPTIONS } from './activity-options';
import { moveUpdate } from './definitions';
import { failureMessage } from './failures';
import { isHostLoss, startedBeforeLoss } from './host-loss';
import { onHost } from './prepare';

/** What the host binding needs of its session. */
export interface HostedSession {
  readonly input: ResolvedAgentInput;
  prepared(): PrepareSessionOutput;
  /** The session's last snapshot (what a move puts back) and its first (a fresh clone's files). */
  snapshots(): { first?: string; last?: { turn: number; ref: string } };
  /** The files now live on another host: prepared there as `next`. */
  moved(next: PrepareSessionOutput, detail: string): void;
  /** Shows a status; says what it was. */
  status(status: AgentStatus): AgentStatus;
}

/** What a call is told when it is made again after its host was lost. */
export interface CallRetry {
  /** The host came back, and the call had started there before: it may have had effects. */
  startedBefore: boolean;
}

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

  listen(): void {
    setHandler(moveUpdate, (request) => this.requestMove(request), { validator: (request) => this.validate(request) });
  }

  /** Options that send a workspace activity to the session's host (none: the shared queue). */
  options(): { taskQueue?: string; scheduleToStartTimeout?: number } {
    return onHost(this.session.prepared().host, this.session.input.hostLossTimeoutMs);
  }

  /** Runs a workspace activity on the session's host, and again wherever the session goes if that host is lost. */
  async call<T>(run: (where: ReturnType<SessionHost['options']>, retry: CallRetry) => Promise<T>): Promise<T> {
    let retry: CallRetry = { startedBefore: false };
    for (;;) {
      const host = this.session.prepared().host;
      try {
        return await run(this.options(), retry);
      } catch (error) {
        if (!host || !isHostLoss(error)) throw error;
        if (this.session.prepared().host === host) this.moving ??= this.hostLost(host).finally(() => (this.moving = undefined));
        await this.moving;
        retry = { startedBefore: this.session.prepared().host === host && startedBeforeLoss(error) };
      }
    }
  }

  /** A `repo` session's changes, committed to its branch and pushed (the branch at its base commit when that fails). */
  async commitBranch(workdir: () => string, message: string): Promise<BranchResult> {
    const repo = this.session.prepared().repo!;
    try {
      return await this.call((where) =>
        commitBranch.executeWithOptions({ ...REPOSITORY_OPTIONS, ...where, summary: `commit ${repo.branch}` }, [{ workdir: workdir(), branch: repo.branch, message }]),
      );
    } catch (error) {
      return { name: repo.branch, commit: repo.commit, pushed: false, pushError: `not committed: ${failureMessage(error)}` };
    }
  }

  private hostLost(host: string): Promise<void> {
    return this.session.prepared().repo ? this.moveRepository(host) : this.waitForHost(host);
  }

  private async moveRepository(lost: string): Promise<void> {
    const repo = this.session.prepared().repo!;
    const { first, last } = this.session.snapshots();
    const clone = await cloneRepository.executeWithOptions(
      { ...REPOSITORY_OPTIONS, retry: { ...REPOSITORY_OPTIONS.retry, maximumAttempts: MOVE_ATTEMPTS }, summary: `host ${lost} lost · clone elsewhere` },
      [{ sessionId: workflowInfo().workflowId, url: repo.url, move: { commit: repo.commit, lostHost: lost, ...(last ? { snapshotRef: last.ref } : {}), ...(first ? { baseRef: first } : {}) } }],
    );
    const files = last ? `the files of turn ${last.turn}` : 'the files of its start';
    await this.prepareOn(clone.host, clone.workdir, `host ${lost} was lost; ${clone.host ?? 'another worker'} cloned the repository and put back ${files} in ${clone.workdir}`);
  }

  /** Prepares the session again where its files now are (the system prompt names the new workdir). */
  private async prepareOn(host: string | undefined, workdir: string, detail: string): Promise<void> {
    const current = this.session.prepared();
    const input = this.session.input;
    const prepared = await prepareSession.executeWithOptions({ ...SESSION_OPTIONS, ...onHost(host, input.hostLossTimeoutMs), summary: 'prepare session (moved)' }, [
      {
        workdir,
        model: current.model,
        allowedTools: input.allowedTools,
        systemPromptAppend: input.systemPrompt,
        prompt: input.prompt,
        startedAt: new Date(workflowInfo().startTime).toISOString(),
        ...(input.trustRepoHooks ? { trustRepoHooks: true } : {}),
      },
    ]);
    const next: PrepareSessionOutput = { ...prepared, model: current.model, prompt: current.prompt, ...(current.repo ? { repo: current.repo } : {}) };
    if (next.host) upsertSearchAttributes([{ key: AGENT_HOST, value: next.host }]);
    this.session.moved(next, detail);
  }

  /** Waits until the host is back or a move is asked for and done. */
  private async waitForHost(lost: string): Promise<void> {
    this.waitingFor = lost;
    const before = this.session.status('waiting_host');
    try {
      for (;;) {
        const scope = new CancellationScope();
        const next = await scope.run(() =>
          Promise.race([
            probeHost
              .executeWithOptions({ ...PROBE_OPTIONS, ...onHost(lost, this.session.input.hostLossTimeoutMs), summary: `wait for host ${lost}` }, [])
              .then(
                () => 'back' as const,
                (error) => {
                  if (isHostLoss(error)) return 'lost' as const;
                  throw error;
                },
              ),
            condition(() => this.requested !== null).then(() => 'move' as const),
          ]),
        );
        scope.cancel();
        if (next === 'back') return;
        if (next === 'move' && (await this.carryOutMove())) return;
      }
    } finally {
      // A move asked for just as the host came back (or the session was cancelled) is not made.
      if (this.requested) this.outcomes.set(this.requested.ticket, { error: `The session no longer waits for ${lost}: it was not moved.` });
      this.requested = null;
      this.waitingFor = null;
      this.session.status(before);
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
      await materializeSnapshot.executeWithOptions({ ...WORKSPACE_OPTIONS, ...where, summary: `move to ${request.host} · files` }, [{ workdir, ref: last.ref }]);
      await this.prepareOn(request.host, workdir, `host ${lost} was lost; moved to ${request.host} with the files of turn ${last.turn} in ${workdir}`);
      this.outcomes.set(ticket, { ok: { host: request.host, workdir: this.session.prepared().workdir, turn: last.turn } });
      return true;
    } catch (error) {
      const message = isHostLoss(error) ? `no worker of host ${request.host} picked up the move` : failureMessage(error);
      this.outcomes.set(ticket, { error: `The session could not move to ${request.host}: ${message}. It still waits for ${lost}.` });
      return false;
    }
  }

  private validate(request: MoveRequest): void {
    if (this.waitingFor === null) throw new Error('the session is not waiting for a lost host (status waiting_host): move applies only then');
    if (request.host === this.waitingFor) throw new Error(`${request.host} is the host the session waits for: it goes on there by itself once that host is back`);
    if (!this.session.snapshots().last) throw new Error('the session has no snapshot to move');
    if (this.requested) throw new Error('a move is already under way');
    if (request.workdir !== undefined && !request.workdir.startsWith('/')) throw new Error('workdir: must be an absolute path on the new host');
  }

  private async requestMove(request: MoveRequest): Promise<MoveResult> {
    const ticket = ++this.tickets;
    this.requested = { request, ticket };
    await condition(() => this.outcomes.has(ticket));
    const outcome = this.outcomes.get(ticket)!;
    this.outcomes.delete(ticket);
    if ('ok' in outcome) return outcome.ok;
    throw ApplicationFailure.nonRetryable(outcome.error, ErrorType.MoveFailed);
  }
}
