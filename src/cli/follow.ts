import { type Client, type WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import type { AgentResult, TranscriptEntry } from '../shared/contract';
import type { LiveEvent, PublishedEvent } from '../shared/live-events';
import type { Store } from '../store/open-store';
import { stateQuery, transcriptQuery } from '../workflows/definitions';
import { answeredInTime, QUERY_DEADLINE_MS } from './cli-client';
import { failureMessage } from './failure-message';
import { LivePrinter } from './live-printer';
import { SessionEvents } from './session-events';
import { type StoredSession, storedSession } from './stored-session';
import { stdoutTerminal, type Terminal } from './terminal';

export interface FollowOptions {
  /** NDJSON events (src/shared/live-events.ts) instead of text for people. */
  json?: boolean;
  /** The store: its live channel (streamed text, retries, progress) and stored transcripts. */
  store?: Store;
  terminal?: Terminal;
  /** Lines for people in `--json` mode (stderr, so stdout stays NDJSON). */
  note?: (line: string) => void;
  /** Starts the session once the live channel listens (`run`): not one delta is missed. */
  start?: () => Promise<unknown>;
}

/** How often the transcript is asked for while nothing streams. */
const POLL_MS = 500;

/**
 * Follows a session to its end: the transcript so far, then what happens as it happens (the
 * model's text as it streams, retries, tool progress), then the result. Ctrl-C stops following
 * only: the session goes on durably. A new run (continue-as-new) is followed too: the workflow
 * id stays, and so do the transcript's indexes and the live channel. A session that has ended
 * is read from its result and stored transcript: no worker needed.
 *
 * Two sources feed one output: transcript pages (polled) and live events (pushed). The fields
 * keep them in order: entries print once, and a new turn's live text waits for the entries of
 * the turns before it.
 */
export class SessionFollower {
  private readonly terminal: Terminal;
  private readonly events: SessionEvents;
  private readonly printer: LivePrinter;
  /** Set once the session has been started (or, for `watch`, at once). */
  private handle: WorkflowHandle | undefined;
  /** The transcript index the next page starts at. */
  private nextIndex = 0;
  /** The highest turn the transcript has shown. */
  private transcriptTurn = 0;
  /** The last transcript request had no answer in time: no worker polls the session's queue. */
  private unanswered = false;
  /** The transcript request in flight: one at a time, so entries print once and in order. */
  private polling: Promise<number> | undefined;
  /** Live batches, shown in order, each after the transcript entries of the turns before it. */
  private liveChain = Promise.resolve();
  /** The highest turn a live batch has caught the transcript up to. */
  private syncedTurn = 0;
  /** The session has ended (or following stopped): the poller's loop ends. */
  private finished = false;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    private readonly options: FollowOptions = {},
  ) {
    this.terminal = options.terminal ?? stdoutTerminal();
    this.events = new SessionEvents(workflowId);
    this.printer = new LivePrinter(this.terminal);
  }

  /** Follows the session to its end. Resolves with the exit code: 0 when the session completed. */
  async follow(): Promise<number> {
    const unsubscribe = await this.subscribe();
    try {
      await this.options.start?.();
      this.handle = this.client.workflow.getHandle(this.workflowId);
      if (!this.options.start) {
        const ended = await storedSession(this.handle, this.options.store);
        if (ended) return this.showStored(ended);
      }
      this.note(
        `Following ${this.workflowId}${unsubscribe ? ' live' : ''} (Ctrl-C stops following; the session goes on).`,
      );
      return await this.followRunning(this.handle);
    } finally {
      await unsubscribe?.();
      await this.liveChain;
      this.printer.close();
    }
  }

  /** Listens on the store's live channel; undefined (and a note) when there is none or it fails. */
  private async subscribe(): Promise<(() => Promise<void>) | undefined> {
    return this.options.store?.live
      .subscribe(this.workflowId, (batch) => this.receive(batch))
      .catch((error: Error) => {
        this.note(`(live output unavailable: ${error.message})`);
        return undefined;
      });
  }

  /**
   * Live events wait behind the transcript entries of earlier turns: a new turn's first text
   * comes after the tool results of the turn before, as it happened.
   */
  private receive(batch: PublishedEvent[]): void {
    this.liveChain = this.liveChain.then(async () => {
      const turn = Math.max(...batch.map((event) => event.turn));
      if (this.handle && turn > this.syncedTurn && turn > this.transcriptTurn) {
        this.syncedTurn = turn;
        await this.poll().catch(() => 0);
      }
      for (const event of batch) this.showLive(event);
    });
  }

  private showStored(ended: StoredSession): number {
    for (const entry of ended.transcript) this.showEntry(entry);
    return this.showResult(ended.result);
  }

  private async followRunning(session: WorkflowHandle): Promise<number> {
    const poller = this.pollUntilFinished();
    const interrupted = new Promise<'interrupted'>((resolve) => process.once('SIGINT', () => resolve('interrupted')));
    try {
      const outcome = await Promise.race([session.result() as Promise<AgentResult>, interrupted]);
      await this.stopPolling(poller);
      if (outcome === 'interrupted') {
        this.note(
          '\nStopped following. The session goes on durably; it continues whenever a worker runs (npm run worker).',
        );
        return 130;
      }
      return await this.showFinalResult(outcome);
    } catch (error) {
      await this.stopPolling(poller);
      return this.showFailure(error);
    }
  }

  private async pollUntilFinished(): Promise<void> {
    while (!this.finished) {
      // The workflow may not have run its first task yet, or may have just closed: try again.
      const printed = await this.poll().catch(() => 0);
      if (printed === 0 && !this.finished) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private async stopPolling(poller: Promise<void>): Promise<void> {
    this.finished = true;
    await poller;
  }

  /** The entries the poller had not reached before the result (not when no worker answers: it would wait again). */
  private async showFinalResult(result: AgentResult): Promise<number> {
    if (!this.unanswered) await this.poll(10_000).catch(() => 0);
    else
      this.note(
        `(no worker answered within ${QUERY_DEADLINE_MS / 1000} s, and this session stored no transcript: showing its result only)`,
      );
    return this.showResult(result);
  }

  private showFailure(error: unknown): number {
    const message = failureMessage(error instanceof WorkflowFailedError && error.cause ? error.cause : error);
    if (this.options.json) this.emit(this.events.fromFailure(message));
    console.error(`Workflow ${this.workflowId} failed: ${message}`);
    return 1;
  }

  /** Asks for the next transcript page once the request before has been answered. */
  private poll(limit?: number): Promise<number> {
    this.polling = (this.polling ?? Promise.resolve(0)).catch(() => 0).then(() => this.pollOnce(limit));
    return this.polling;
  }

  /** Shows the next transcript page and the approvals waiting; resolves with how many entries it had. */
  private async pollOnce(limit?: number): Promise<number> {
    const session = this.handle!;
    const page = await answeredInTime(this.client, () =>
      session.query(transcriptQuery, { fromIndex: this.nextIndex, ...(limit ? { limit } : {}) }),
    );
    this.unanswered = page === undefined;
    if (!page) return 0;
    const first = page.nextIndex - page.entries.length;
    // The session continued as new since the last page: the entries in between are its earlier run's.
    if (first > this.nextIndex)
      for (const entry of await earlierRunEntries(this.client, this.workflowId, this.nextIndex, first))
        this.showEntry(entry);
    for (const entry of page.entries) {
      this.transcriptTurn = Math.max(this.transcriptTurn, entry.turn);
      this.showEntry(entry);
    }
    this.nextIndex = page.nextIndex;
    await this.showPendingApprovals(session);
    return page.entries.length;
  }

  private async showPendingApprovals(session: WorkflowHandle): Promise<void> {
    const state = await answeredInTime(this.client, () => session.query(stateQuery)).catch(() => undefined);
    if (state?.pendingQuestions?.length) {
      if (this.options.json) this.emit(this.events.fromQuestions(state.pendingQuestions, state.turn));
      else this.printer.pendingQuestions(state.pendingQuestions, this.workflowId);
    }
    // Issue 26: a rate limit waited out, said once per wait.
    if (state?.status === 'waiting_rate_limit' && state.rateLimit?.until && !this.options.json)
      this.printer.rateLimitWait(state.rateLimit);
    if (!state?.pendingApprovals.length) return;
    if (this.options.json) this.emit(this.events.fromApprovals(state.pendingApprovals, state.turn));
    else this.printer.pendingApprovals(state.pendingApprovals, this.workflowId);
  }

  private emit(items: LiveEvent[]): void {
    for (const event of items) this.terminal.write(`${JSON.stringify(event)}\n`);
  }

  private note(line: string): void {
    if (this.options.json) (this.options.note ?? console.error)(line);
    else this.printer.note(line);
  }

  private showEntry(entry: TranscriptEntry): void {
    if (this.options.json) this.emit(this.events.fromEntry(entry));
    else this.printer.entry(entry);
  }

  private showLive(event: PublishedEvent): void {
    if (this.options.json) this.emit(this.events.fromLive(event));
    else this.printer.live(event);
  }

  private showResult(result: AgentResult): number {
    if (this.options.json) this.emit(this.events.fromResult(result));
    else this.printer.result(result);
    return result.reason === 'completed' ? 0 : 1;
  }
}

/**
 * Transcript entries `from` to `to` (exclusive) held by earlier runs of the session (each run
 * holds its own; continue-as-new carries only the index): asked of those closed runs, oldest
 * first. A query of a closed run needs a worker too; without one, the gap stays.
 */
async function earlierRunEntries(
  client: Client,
  workflowId: string,
  from: number,
  to: number,
): Promise<TranscriptEntry[]> {
  const runs: { runId: string; started: number }[] = [];
  for await (const run of client.workflow.list({
    query: `WorkflowId='${workflowId.replace(/'/g, "\\'")}' AND ExecutionStatus='ContinuedAsNew'`,
  })) {
    runs.push({ runId: run.runId, started: run.startTime.getTime() });
  }
  const entries: TranscriptEntry[] = [];
  let cursor = from;
  for (const { runId } of runs.sort((a, b) => a.started - b.started)) {
    if (cursor >= to) break;
    const run = client.workflow.getHandle(workflowId, runId);
    const page = await answeredInTime(client, () =>
      run.query(transcriptQuery, { fromIndex: cursor, limit: to - cursor }),
    ).catch(() => undefined);
    if (!page || page.nextIndex - page.entries.length !== cursor) continue;
    entries.push(...page.entries);
    cursor = page.nextIndex;
  }
  return entries;
}
