/**
 * The egress proxy of one policy: an HTTP proxy on a Unix socket, which a sandbox with no
 * network of its own reaches through a bridge (socat, inside the sandbox, from 127.0.0.1:3128,
 * which HTTP_PROXY and HTTPS_PROXY name). It tunnels `CONNECT host:port` and forwards
 * absolute-URI plain-http requests to the hosts the policy allows (allowed-domains.ts), dialing
 * only addresses the resolved-address guard accepts (upstream-connection.ts); everything else is
 * answered 403 with how to allow it, and what cannot be reached 502 with why.
 *
 * It runs inside the worker process, so no client, however hostile, may crash it: every socket
 * has an error listener from the moment it exists and every handler's failure ends only its own
 * connection.
 */
import { chmod } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AllowedDomain } from './allowed-domains';
import { forwardedHeaders } from './forwarded-headers';
import { absoluteTarget, connectTarget, hostHeader } from './request-target';
import {
  connectUpstream,
  EgressRefused,
  formatDestination,
  systemResolve,
  UpstreamFailed,
  type Resolve,
  type UpstreamSettings,
} from './upstream-connection';

export interface EgressProxyOptions {
  /** Resolving and connecting to a destination, together (30 s). */
  connectTimeoutMs?: number;
  /** A connection with no byte either way for this long is closed (5 min). */
  idleTimeoutMs?: number;
  /**
   * Simultaneous client connections (256). Each holds two file descriptors of the worker
   * process, which also serves Temporal and every other session: a command that opens
   * connections in a loop must not exhaust them. Past the limit, a connection is closed at once.
   */
  maxConnections?: number;
  /** All addresses of a name: the system resolver (dns.lookup) unless a test substitutes one. */
  resolve?: Resolve;
}

interface ProxySettings extends UpstreamSettings {
  idleTimeoutMs: number;
}

/** sun_path holds 108 bytes, its NUL included: a longer path would be cut, or refused. */
const MAX_SOCKET_PATH_BYTES = 107;

export class EgressProxy {
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly socketPath: string,
    private readonly server: Server,
  ) {}

  /** A proxy for `allowed`, listening on `socketPath` (which must not exist), which any local user may connect to. */
  static async listen(
    socketPath: string,
    allowed: readonly AllowedDomain[],
    options: EgressProxyOptions = {},
  ): Promise<EgressProxy> {
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
      throw new Error(`${socketPath}: a Unix socket path has at most ${MAX_SOCKET_PATH_BYTES} bytes`);
    const settings: ProxySettings = {
      allowed: [...allowed],
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      idleTimeoutMs: options.idleTimeoutMs ?? 300_000,
      resolve: options.resolve ?? systemResolve,
    };
    // Node's own limits stay: 16 KiB of request headers (431 past that), 60 s to send them.
    const server = createServer();
    server.maxConnections = options.maxConnections ?? 256;
    const proxy = new EgressProxy(socketPath, server);
    proxy.serve(settings);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    // Accept errors (EMFILE) are passing: the server keeps listening.
    server.on('error', () => {});
    // The sandbox's user is not the worker's; see egress-proxies.ts for why 0666 is fine.
    await chmod(socketPath, 0o666).catch(async (error: unknown) => {
      await proxy.close();
      throw error;
    });
    return proxy;
  }

  /** Stops listening and ends every connection, tunnels included. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private serve(settings: ProxySettings): void {
    this.server.on('connection', (socket: Socket) => {
      socket.on('error', () => socket.destroy());
      this.track(socket);
    });
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
      socket.on('error', () => socket.destroy());
      if (error.code === 'HPE_HEADER_OVERFLOW') answerRaw(socket, 431, 'the request headers are too large');
      else answerRaw(socket, 400, 'malformed request');
    });
    this.server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
      this.tunnel(settings, request, client, head).catch(() => client.destroy());
    });
    this.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      this.forward(settings, request, response).catch(() => response.destroy());
    });
    this.server.on('upgrade', (_request: IncomingMessage, socket: Duplex) => {
      socket.on('error', () => socket.destroy());
      answerRaw(
        socket,
        501,
        'upgrades (WebSocket) over plain http are not proxied: use https or wss, which tunnel through CONNECT',
      );
    });
  }

  private async tunnel(settings: ProxySettings, request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    // The server stops watching a socket once it is a CONNECT: from here it is ours.
    client.on('error', () => client.destroy());
    if (!(client instanceof Socket)) return void client.destroy();
    // Idle while the destination resolves or once the tunnel is up: a socket's timer restarts
    // with every byte read or written.
    client.setTimeout(settings.idleTimeoutMs, () => client.destroy());
    let upstream: Socket;
    try {
      upstream = await connectUpstream(connectTarget(request.url ?? ''), settings);
    } catch (error) {
      return answerRaw(client, statusFor(error), (error as Error).message);
    }
    this.track(upstream);
    // The client may have gone while the name resolved.
    if (client.destroyed) return void upstream.destroy();
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    splice(client, upstream, head);
  }

  private async forward(settings: ProxySettings, request: IncomingMessage, response: ServerResponse): Promise<void> {
    request.on('error', () => response.destroy());
    response.on('error', () => response.destroy());
    let target: ReturnType<typeof absoluteTarget>;
    let upstream: Socket;
    try {
      target = absoluteTarget(request.url ?? '');
      upstream = await connectUpstream(target.destination, settings);
    } catch (error) {
      return answer(response, statusFor(error), (error as Error).message);
    }
    this.track(upstream);
    if (response.destroyed) return void upstream.destroy();
    upstream.setTimeout(settings.idleTimeoutMs, () => upstream.destroy(new Error('no answer: idle timeout')));
    const { destination, path } = target;
    // The Host is the name that was checked: another one would choose another site on a shared
    // server or CDN than the allow-list let through.
    const headers = { ...forwardedHeaders(request.headers), host: hostHeader(destination) };
    // Transfer-Encoding is hop-by-hop, but a body framed by it must stay framed: sent unframed
    // after headers that promise none, it would be read upstream as the next request.
    if (request.headers['transfer-encoding'] !== undefined) headers['transfer-encoding'] = 'chunked';
    const outgoing = httpRequest({
      createConnection: () => upstream,
      method: request.method,
      path,
      headers,
      setHost: false,
    });
    outgoing.on('response', (incoming) => relayResponse(incoming, response));
    outgoing.on('error', (error) =>
      response.headersSent
        ? response.destroy()
        : answer(response, 502, `${formatDestination(destination)}: ${error.message}`),
    );
    response.on('close', () => outgoing.destroy());
    request.pipe(outgoing);
  }
}

function relayResponse(incoming: IncomingMessage, response: ServerResponse): void {
  incoming.on('error', () => response.destroy());
  response.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, forwardedHeaders(incoming.headers));
  incoming.pipe(response);
}

/**
 * Bytes both ways until either side closes; each direction's end is passed on. The client's idle
 * timeout (set in tunnel) covers both directions: every byte either way passes its socket.
 */
function splice(client: Socket, upstream: Socket, head: Buffer): void {
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('close', close);
  upstream.on('close', close);
  // Bytes the client sent right behind the CONNECT line come as `head`, not from the socket.
  if (head.length > 0) upstream.write(head);
  client.pipe(upstream);
  upstream.pipe(client);
}

/** Refused by the policy, unreachable, or else a target that does not parse (request-target.ts). */
function statusFor(error: unknown): number {
  if (error instanceof EgressRefused) return 403;
  if (error instanceof UpstreamFailed) return 502;
  return 400;
}

const prefixed = (text: string) => `durable-agent egress proxy: ${text}\n`;

function answer(response: ServerResponse, status: number, text: string): void {
  if (response.headersSent) return void response.destroy();
  const body = prefixed(text);
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

/** A whole response on a socket the HTTP server no longer handles (CONNECT, upgrade, a parse error), then closed. */
function answerRaw(socket: Duplex, status: number, text: string): void {
  if (!socket.writable) return void socket.destroy();
  const body = prefixed(text);
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  socket.end(head + body, () => socket.destroy());
}
