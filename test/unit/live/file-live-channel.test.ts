import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLiveChannel } from '../../../src/live/file-live-channel';
import { payloads } from '../../../src/live/postgres-live-channel';
import { sessionChannel } from '../../../src/live/live-channel';
import type { PublishedEvent } from '../../../src/shared/live-events';

const delta = (index: number, text = `piece ${index}`): PublishedEvent => ({
  type: 'text_delta',
  workflowId: 'agent-1',
  turn: 1,
  at: 'now',
  attempt: 1,
  index,
  kind: 'text',
  text,
});

describe("a file store's live channel (Unix sockets)", () => {
  test('every watcher gets every event, in order; publishing to a session nobody watches writes nothing', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'live-'));
    const worker = new FileLiveChannel(directory);
    await worker.publish('agent-1', [delta(0)]);
    expect(existsSync(join(directory, sessionChannel('agent-1')))).toBe(false);

    const watcher = new FileLiveChannel(directory);
    const received: [PublishedEvent[], PublishedEvent[]] = [[], []];
    const closers = await Promise.all(
      received.map((into) => watcher.subscribe('agent-1', (events) => into.push(...events))),
    );
    const other: PublishedEvent[] = [];
    const closeOther = await watcher.subscribe('agent-2', (events) => other.push(...events));
    for (let index = 0; index < 50; index += 10)
      await worker.publish(
        'agent-1',
        Array.from({ length: 10 }, (_, offset) => delta(index + offset)),
      );
    while (received.some((into) => into.length < 50)) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const into of received)
      expect(into.map((event) => (event as { index: number }).index)).toEqual(
        Array.from({ length: 50 }, (_, index) => index),
      );
    expect(other).toEqual([]);

    for (const close of [...closers, closeOther]) await close();
    expect(readdirSync(join(directory, sessionChannel('agent-1')))).toEqual([]);
    await worker.close();
  });

  test("a dead watcher's socket is removed by the next publisher", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'live-'));
    const folder = join(directory, sessionChannel('agent-1'));
    const watcher = new FileLiveChannel(directory);
    const close = await watcher.subscribe('agent-1', () => undefined);
    await close();
    // A socket file whose listener is gone, as a watcher killed with SIGKILL leaves it.
    const stale = join(folder, 'stale.sock');
    const child = spawn(
      process.execPath,
      ['-e', `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => console.log('up'))`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(existsSync(stale)).toBe(true);
    writeFileSync(join(folder, 'not-a-socket.txt'), '');
    const worker = new FileLiveChannel(directory);
    await worker.publish('agent-1', [delta(0)]);
    await worker.publish('agent-1', [delta(1)]);
    expect(readdirSync(folder).filter((name) => name.endsWith('.sock'))).toEqual([]);
    await worker.close();
  });
});

describe('what the live channels carry', () => {
  test('PostgreSQL payloads stay under its 8,000-byte limit, events whole and in order', () => {
    const events = Array.from({ length: 40 }, (_, index) => delta(index, 'é'.repeat(900)));
    const batches = payloads(events);
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) expect(Buffer.byteLength(batch)).toBeLessThan(8000);
    expect(
      batches.flatMap((batch) => batch.split('\n').map((line) => (JSON.parse(line) as { index: number }).index)),
    ).toEqual(events.map((_, index) => index));
  });
});
