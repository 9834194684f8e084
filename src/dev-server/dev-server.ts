/**
 * Starts a real Temporal dev server (`temporal server start-dev`) with the Web UI, persisted to
 * a SQLite file so it survives restarts, and with our search attributes registered.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { AGENT_SEARCH_ATTRIBUTES, cliTypeName } from '../shared/search-attributes';

export interface DevServerOptions {
  cliPath: string;
  ip?: string;
  port: number;
  uiPort?: number;
  /** SQLite file; without one the server keeps everything in memory. */
  dbFilename?: string;
  /** Keep running after this process exits (the CLI's embedded server). */
  detached?: boolean;
  /** The codec server the Web UI sends payloads to for display (`--ui-codec-endpoint`). */
  uiCodecEndpoint?: string;
  /** Where the server's own output goes (default: discarded). */
  logFile?: string;
  readyTimeoutMs?: number;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(options.port), '--log-level', 'warn'];
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (options.dbFilename) {
    mkdirSync(dirname(options.dbFilename), { recursive: true });
    args.push('--db-filename', options.dbFilename);
    // SQLite's default rollback journal syncs the file several times a commit, and every workflow
    // and activity transition is a commit: a write-ahead log syncs once, and still survives a
    // power loss (synchronous stays FULL). Measured: Temporal's own bare workflow runs ×2.3 as
    // many turns a second (BENCHMARKS.md). The mode is kept in the file; older files convert.
    args.push('--sqlite-pragma', 'journal_mode=wal');
  }
  for (const key of AGENT_SEARCH_ATTRIBUTES) args.push('--search-attribute', `${key.name}=${cliTypeName(key)}`);

  let output: 'ignore' | number = 'ignore';
  if (options.logFile) {
    mkdirSync(dirname(options.logFile), { recursive: true });
    output = openSync(options.logFile, 'a');
  }
  const child: ChildProcess = spawn(options.cliPath, args, {
    detached: options.detached ?? false,
    stdio: ['ignore', output, output],
  });
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited with ${signal ?? `code ${code}`}`;
  });
  if (options.detached) child.unref();

  const address = `${ip}:${options.port}`;
  try {
    await waitForServer(address, options.readyTimeoutMs ?? 60_000, () => exited);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(
      `Temporal dev server did not start on ${address}: ${(error as Error).message}` +
        (options.logFile ? ` (see ${options.logFile})` : ''),
    );
  }
  return {
    address,
    uiUrl: options.uiPort ? `http://${ip === '0.0.0.0' ? '127.0.0.1' : ip}:${options.uiPort}` : undefined,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Whether something accepts TCP connections at host:port. */
export function isListening(address: string, timeoutMs = 1000): Promise<boolean> {
  const [host, port] = splitAddress(address);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port, timeout: timeoutMs });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Waits until the server answers a namespace lookup (the port opens before it is ready). */
export async function waitForServer(
  address: string,
  timeoutMs: number,
  stopped: () => string | undefined = () => undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'not listening';
  while (Date.now() < deadline) {
    const reason = stopped();
    if (reason) throw new Error(`the server process ${reason}`);
    if (await isListening(address)) {
      try {
        const connection = await Connection.connect({ address, connectTimeout: 2000 });
        try {
          await connection.workflowService.describeNamespace({ namespace: 'default' });
          return;
        } finally {
          await connection.close();
        }
      } catch (error) {
        lastError = (error as Error).message;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`not ready after ${timeoutMs} ms (${lastError})`);
}

export function splitAddress(address: string): [string, number] {
  const index = address.lastIndexOf(':');
  return [address.slice(0, index) || '127.0.0.1', Number(address.slice(index + 1))];
}
