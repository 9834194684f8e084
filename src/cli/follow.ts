import { type Client, type WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import type { AgentResult, TranscriptEntry } from '../shared/contract';
import type { PublishedEvent } from '../shared/live-events';
import type { Store } from '../store/open-store';
import { stateQuery, transcriptQuery } from '../workflows/definitions';
import { answeredInTime, QUERY_DEADLINE_MS } from './cli-client';
import { failureMessage } from './failure-message';
import { LivePrinter } from './live-printer';
import { SessionEvents } from './session-events';
import { storedSession } from './stored-session';
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
 * Returns the exit code: 0 when the session completed.
 */
export async function followSession(client: Client, workflowId: string, options: FollowOptions = {}): Promise<number> {
  const terminal = options.terminal ?? stdoutTerminal();
  const events = new SessionEvents(workflowId);
  const printer = new LivePrinter(terminal);
  const emit = (items: ReturnType<SessionEvents['fromEntry']>) => {
    for (const event of items) terminal.write(`${JSON.stringify(event)}\n`);
  };
  const note = (line: string) => (options.json ? (options.note ?? console.error)(line) : printer.note(line));
  const showEntry = (entry: TranscriptEntry) => (options.json ? emit(events.fromEntry(entry)) : printer.entry(entry));
  const showLive = (event: PublishedEvent) => (options.json ? emit(events.fromLive(event)) : printer.live(event));
  const showResult = (result: AgentResult) => {
    if (options.json) emit(events.fromResult(result));
    else printer.result(result);
    return result.reason === 'completed' ? 0 : 1;
  };

  let nextIndex = 0;
  let transcriptTurn = 0;
  let unanswered = false;
  let polling: Promise<number> | undefined;
  let handle: WorkflowHandle | undefined;
  const pollOnce = async (limit?: number): Promise<number> => {
    const session = handle!;
    const page = await answeredInTime(client, () =>
      session.query(transcriptQuery, { fromIndex: nextIndex, ...(limit ? { limit } : {}) }),
    );
    unanswered = page === undefined;
    if (!page) return 0;
    const first = page.nextIndex - page.entries.length;
    // The session continued as new since the last page: the entries in between are its earlier run's.
    if (first > nextIndex)
      for (const entry of await earlierRunEntries(client, workflowId, nextIndex, first)) showEntry(entry);
    for (const entry of page.entries) {
      transcriptTurn = Math.max(transcriptTurn, entry.turn);
      showEntry(entry);
    }
    nextIndex = page.nextIndex;
    const state = await answeredInTime(client, () => session.query(stateQuery)).catch(() => undefined);
    if (state?.pendingApprovals.length) {
      if (options.json) emit(events.fromApprovals(state.pendingApprovals, state.turn));
      else printer.pendingApprovals(state.pendingApprovals, workflowId);
    }
    return page.entries.length;
  };
  // One transcript request at a time, so entries print once and in order.
  const poll = (limit?: number) =>
    (polling = (polling ?? Promise.resolve(0)).catch(() => 0).then(() => pollOnce(limit)));

  // Live events wait behind the transcript entries of earlier turns: a new turn's first text
  // comes after the tool results of the turn before, as it happened.
  let liveChain = Promise.resolve();
  let syncedTurn = 0;
  const receive = (batch: PublishedEvent[]) => {
    liveChain = liveChain.then(async () => {
      const turn = Math.max(...batch.map((event) => event.turn));
      if (handle && turn > syncedTurn && turn > transcriptTurn) {
        syncedTurn = turn;
        await poll().catch(() => 0);
      }
      for (const event of batch) showLive(event);
    });
  };
  const unsubscribe = await options.store?.live.subscribe(workflowId, receive).catch((error: Error) => {
    note(`(live output unavailable: ${error.message})`);
    return undefined;
  });
  try {
    await options.start?.();
    handle = client.workflow.getHandle(workflowId);
    if (!options.start) {
      const ended = await storedSession(handle, options.store);
      if (ended) {
        for (const entry of ended.transcript) showEntry(entry);
        return showResult(ended.result);
      }
    }
    note(`Following ${workflowId}${unsubscribe ? ' live' : ''} (Ctrl-C stops following; the session goes on).`);
    return await followRunning(handle);
  } finally {
    await unsubscribe?.();
    await liveChain;
    printer.close();
  }

  async function followRunning(session: WorkflowHandle): Promise<number> {
    let finished = false;
    const interrupted = new Promise<'interrupted'>((resolve) => process.once('SIGINT', () => resolve('interrupted')));
    const poller = (async () => {
      while (!finished) {
        // The workflow may not have run its first task yet, or may have just closed: try again.
        const printed = await poll().catch(() => 0);
        if (printed === 0 && !finished) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    })();
    try {
      const outcome = await Promise.race([session.result() as Promise<AgentResult>, interrupted]);
      finished = true;
      await poller;
      if (outcome === 'interrupted') {
        note('\nStopped following. The session goes on durably; it continues whenever a worker runs (npm run worker).');
        return 130;
      }
      // What the poller had not reached before the result (not when no worker answers: it would wait again).
      if (!unanswered) await poll(10_000).catch(() => 0);
      else
        note(
          `(no worker answered within ${QUERY_DEADLINE_MS / 1000} s, and this session stored no transcript: showing its result only)`,
        );
      return showResult(outcome);
    } catch (error) {
      finished = true;
      await poller;
      const message = failureMessage(error instanceof WorkflowFailedError && error.cause ? error.cause : error);
      if (options.json) emit(events.fromFailure(message));
      console.error(`Workflow ${workflowId} failed: ${message}`);
      return 1;
    }
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
