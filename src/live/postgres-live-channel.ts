/**
 * The live channel of a PostgreSQL store: `NOTIFY` on a channel per session, `LISTEN` by each
 * watcher on a connection of its own. PostgreSQL keeps no notification nobody listens to, so a
 * session nobody watches leaves nothing behind. A payload is at most 8,000 bytes: a batch larger
 * than that goes as several notifications (the publisher keeps each delta under 1,000 characters).
 */
import { Client, type Pool } from 'pg';
import type { PublishedEvent } from '../shared/live-events';
import { type LiveChannel, parseEvents, sessionChannel } from './live-channel';

/** Under PostgreSQL's limit of 8,000 bytes per payload. */
const PAYLOAD_MAX_BYTES = 7_500;

export class PostgresLiveChannel implements LiveChannel {
  constructor(
    private readonly pool: Pool,
    private readonly url: string,
  ) {}

  async publish(workflowId: string, events: PublishedEvent[]): Promise<void> {
    const channel = sessionChannel(workflowId);
    for (const payload of payloads(events)) {
      await this.pool.query('SELECT pg_notify($1, $2)', [channel, payload]).catch(() => undefined);
    }
  }

  async subscribe(workflowId: string, receive: (events: PublishedEvent[]) => void): Promise<() => Promise<void>> {
    const client = new Client({ connectionString: this.url });
    client.on('error', () => undefined);
    await client.connect();
    client.on('notification', (message) => {
      const events = parseEvents(message.payload ?? '');
      if (events.length) receive(events);
    });
    // The channel name is ours (hex): quoting it is enough.
    await client.query(`LISTEN "${sessionChannel(workflowId)}"`);
    return () => client.end().catch(() => undefined);
  }

  async close(): Promise<void> {}
}

/** NDJSON payloads under the size limit (the publisher keeps each event far below it). */
export function payloads(events: PublishedEvent[]): string[] {
  const batches: string[] = [];
  let batch = '';
  for (const line of events.map((event) => JSON.stringify(event))) {
    if (batch && Buffer.byteLength(batch) + Buffer.byteLength(line) + 1 > PAYLOAD_MAX_BYTES) {
      batches.push(batch);
      batch = '';
    }
    batch += (batch ? '\n' : '') + line;
  }
  if (batch) batches.push(batch);
  return batches;
}
