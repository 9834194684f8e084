/**
 * The live channel: how text deltas, retries and tool progress reach watchers while a call runs,
 * outside workflow history (see docs/watching.md). Push only: an event reaches whoever
 * watches the session at that moment, and nothing is kept, so a session nobody watches costs
 * nothing. What a late watcher needs (the transcript, the result) comes from the workflow.
 *
 * Two backends, chosen with the store (AGENT_STORE): Unix sockets in the file store's directory,
 * PostgreSQL LISTEN/NOTIFY for a PostgreSQL store.
 */
import { createHash } from 'node:crypto';
import type { PublishedEvent } from '../shared/live-events';

export interface LiveChannel {
  /** Sends events to the session's current watchers; never throws (live output is best effort). */
  publish(workflowId: string, events: PublishedEvent[]): Promise<void>;
  /** Delivers the session's events to `receive` until the returned function is called. */
  subscribe(workflowId: string, receive: (events: PublishedEvent[]) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** A short, fixed-length name for a session (file names, NOTIFY channels): workflow ids may hold anything. */
export function sessionChannel(workflowId: string): string {
  return `live_${createHash('sha256').update(workflowId).digest('hex').slice(0, 24)}`;
}

/** Parses NDJSON lines; a line that is not JSON (a torn write) is dropped. */
export function parseEvents(text: string): PublishedEvent[] {
  const events: PublishedEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      events.push(JSON.parse(line) as PublishedEvent);
    } catch {
      // A partial line: the sender broke off mid-write. The next events still arrive.
    }
  }
  return events;
}
