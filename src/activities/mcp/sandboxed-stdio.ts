/**
 * MCP's stdio transport, with the server started the way Bash commands are: through the worker's
 * CommandSandbox (bubblewrap, or unconfined beside a watchdog), in a process group of its own,
 * with an allow-listed environment (the server's own `env` and the session's `sandboxEnv`, never
 * the worker's variables or the API key). The SDK's StdioClientTransport spawns the server as a
 * plain child of the worker, outside any sandbox and in the worker's process group, so only its
 * message framing (ReadBuffer, serializeMessage) is used here.
 */
import type { ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { CommandSandbox, SessionSandbox } from '../../sandbox/command-sandbox';
import { shellWord } from '../../sandbox/shell-word';

/** What a server wrote on stderr last: it says why a server did not start. */
const STDERR_KEPT_CHARS = 2_000;

export interface SandboxedServer {
  command: string;
  args: string[];
  workdir: string;
  /** The server's installed package, bound read-only (an npx server: see mcp-packages.ts). */
  readOnlyBinds: { source: string; target: string }[];
  sandbox: CommandSandbox;
  /** The session's sandbox with the server's own variables added to its `sandboxEnv`. */
  session: SessionSandbox;
}

export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: ChildProcess;
  private readonly buffer = new ReadBuffer();
  private stderrTail = '';
  private closed = false;

  constructor(private readonly server: SandboxedServer) {}

  /** The last lines the server wrote on stderr. */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const { command, args, workdir, sandbox, session, readOnlyBinds } = this.server;
    const line = [command, ...args].map(shellWord).join(' ');
    const child = await sandbox.start(line, workdir, session, { stdin: true, readOnlyBinds });
    this.child = child;
    return new Promise((resolve, reject) => {
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      // Started already ('spawn' came before this listener could): a pid means it runs; without one, 'error' follows.
      if (child.pid !== undefined) resolve();
      else child.once('spawn', () => resolve());
      child.once('close', () => this.ended());
      child.stdout!.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (!message) break;
          this.onmessage?.(message);
        }
      });
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_KEPT_CHARS);
      });
      child.stdin!.on('error', (error) => this.onerror?.(error));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed) return reject(new Error('the MCP server is not running'));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Kills the server's whole process group (bubblewrap takes everything inside with it). */
  async close(): Promise<void> {
    this.kill();
    this.ended();
  }

  kill(): void {
    try {
      if (this.child?.pid) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    // What the server left running in its group ends with it.
    this.kill();
    this.buffer.clear();
    this.onclose?.();
  }
}
