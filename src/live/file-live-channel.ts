/**
 * The live channel of a file store: each watcher listens on a Unix socket in
 * `<store>/live/<session>/`, and a publishing worker writes NDJSON lines to every socket there.
 * No socket, no watcher: publishing is one failed `readdir`. Sockets of watchers that died are
 * removed by the first publisher that cannot connect.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import type { PublishedEvent } from '../shared/live-events';
import { type LiveChannel, parseEvents, sessionChannel } from './live-channel';

/** Linux's limit on a socket's path (sun_path), less its terminating NUL. */
const SOCKET_PATH_MAX = 107;

export class FileLiveChannel implements LiveChannel {
  /** Open connections to watchers' sockets, by path: one per watcher, reused across publishes. */
  private readonly connections = new Map<string, Promise<Socket | undefined>>();

  constructor(private readonly directory: string) {}

  async publish(workflowId: string, events: PublishedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const folder = join(this.directory, sessionChannel(workflowId));
    const names = await readdir(folder).catch(() => [] as string[]);
    const lines = events.map((event) => JSON.stringify(event)).join('\n') + '\n';
    await Promise.all(
      names
        .filter((name) => name.endsWith('.sock'))
        .map(async (name) => {
          const path = join(folder, name);
          const socket = await this.connect(path);
          socket?.write(lines);
        }),
    );
  }

  private connect(path: string): Promise<Socket | undefined> {
    let connection = this.connections.get(path);
    if (!connection) {
      connection = new Promise((resolve) => {
        const socket = createConnection(path);
        socket.once('connect', () => resolve(socket));
        socket.on('error', (error: NodeJS.ErrnoException) => {
          this.connections.delete(path);
          // Nobody listens there any more (the watcher died without cleaning up): its socket goes.
          const removed =
            error.code === 'ECONNREFUSED' ? rm(path, { force: true }).catch(() => undefined) : Promise.resolve();
          void removed.then(() => resolve(undefined));
        });
        socket.on('close', () => this.connections.delete(path));
        socket.unref();
      });
      this.connections.set(path, connection);
    }
    return connection;
  }

  async subscribe(workflowId: string, receive: (events: PublishedEvent[]) => void): Promise<() => Promise<void>> {
    const folder = join(this.directory, sessionChannel(workflowId));
    await mkdir(folder, { recursive: true });
    const path = join(folder, `${randomBytes(6).toString('hex')}.sock`);
    if (path.length > SOCKET_PATH_MAX) {
      throw new Error(
        `live output needs a socket path under ${SOCKET_PATH_MAX} characters, and ${path} is longer: use a store directory with a shorter path (AGENT_STORE)`,
      );
    }
    const publishers = new Set<Socket>();
    const server = createServer((socket) => {
      publishers.add(socket);
      socket.on('close', () => publishers.delete(socket));
      let pending = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        pending += chunk;
        const end = pending.lastIndexOf('\n');
        if (end < 0) return;
        const events = parseEvents(pending.slice(0, end));
        pending = pending.slice(end + 1);
        if (events.length) receive(events);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    server.unref();
    return async () => {
      // Publishers keep their connection open: close ends only once they are gone.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of publishers) socket.destroy();
      await closed;
      await rm(path, { force: true });
    };
  }

  async close(): Promise<void> {
    for (const connection of this.connections.values()) (await connection)?.destroy();
    this.connections.clear();
  }
}
