/**
 * The egress proxy over real sockets: clients speak to it on its Unix socket as the sandbox's
 * bridge does, and it reaches upstream servers on 127.0.0.1 (listed as IP entries: the only way
 * to a loopback service).
 */
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  request,
  type IncomingHttpHeaders,
  type Server as HttpServer,
} from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { parseAllowedDomains } from '../../../src/sandbox/allowed-domains';
import { EgressProxy, type EgressProxyOptions } from '../../../src/sandbox/egress-proxy';
import { scratchDir } from '../../support/paths';

const directory = scratchDir('egress-proxy');
let proxies = 0;
const open: EgressProxy[] = [];

async function proxy(entries: string[], options: EgressProxyOptions = {}): Promise<string> {
  const started = await EgressProxy.listen(
    join(directory, `${++proxies}.sock`),
    parseAllowedDomains(entries, 'test'),
    options,
  );
  open.push(started);
  return started.socketPath;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((started) => started.close()));
});

/** A TCP server on 127.0.0.1 that answers each chunk with `echo:` and its end with `bye`; `reset` resets the connection. */
interface Echo {
  port: number;
  received: string[];
  connections: Socket[];
}
let echo: Echo;
let echoServer: Server;

/** An HTTP server on 127.0.0.1 that records what reached it. */
interface Seen {
  method?: string;
  url?: string;
  headers?: IncomingHttpHeaders;
  body?: string;
}
let web: { port: number; seen: Seen };
let webServer: HttpServer;

beforeAll(async () => {
  echo = { port: 0, received: [], connections: [] };
  echoServer = createServer({ allowHalfOpen: true }, (socket) => {
    echo.connections.push(socket);
    socket.on('data', (data) => {
      if (data.toString() === 'reset') return void socket.resetAndDestroy();
      echo.received.push(data.toString());
      socket.write(`echo:${data.toString()}`);
    });
    socket.on('end', () => socket.end('bye'));
    socket.on('error', () => socket.destroy());
  });
  echoServer.listen(0, '127.0.0.1');
  await once(echoServer, 'listening');
  echo.port = (echoServer.address() as AddressInfo).port;

  web = { port: 0, seen: {} };
  webServer = createHttpServer((incoming, response) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
    incoming.on('end', () => {
      web.seen = { method: incoming.method, url: incoming.url, headers: incoming.headers, body };
      response.writeHead(200, {
        'x-upstream': 'yes',
        'proxy-authenticate': 'Basic',
        connection: 'close, x-upstream-hop',
        'x-upstream-hop': '1',
      });
      response.end('hello');
    });
  });
  webServer.listen(0, '127.0.0.1');
  await once(webServer, 'listening');
  web.port = (webServer.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const socket of echo.connections) socket.destroy();
  await Promise.all([
    new Promise((resolve) => echoServer.close(resolve)),
    new Promise((resolve) => webServer.close(resolve)),
  ]);
});

beforeEach(() => {
  echo.received = [];
  web.seen = {};
});

/** A port on 127.0.0.1 that nothing listens on (it did a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Connected {
  status: number;
  socket: Socket;
  head: Buffer;
}

function connectThrough(socketPath: string, target: string): Promise<Connected> {
  return new Promise((resolve, reject) => {
    const connecting = request({ socketPath, method: 'CONNECT', path: target });
    connecting.once('connect', (response, socket: Socket, head: Buffer) =>
      resolve({ status: response.statusCode ?? 0, socket, head }),
    );
    connecting.once('error', reject);
    connecting.end();
  });
}

/** Everything the socket still sends, until it ends. */
async function rest(socket: Socket, head?: Buffer): Promise<string> {
  const chunks: Buffer[] = head ? [head] : [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'end');
  return Buffer.concat(chunks).toString();
}

async function refusal(socketPath: string, target: string): Promise<{ status: number; body: string }> {
  const { status, socket, head } = await connectThrough(socketPath, target);
  const body = await rest(socket, head);
  socket.destroy();
  return { status, body };
}

/** Reads from the socket until `text` has arrived. */
async function receive(socket: Socket, text: string): Promise<string> {
  let seen = '';
  while (!seen.includes(text)) {
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    seen += chunk.toString();
  }
  return seen;
}

/**
 * A raw exchange on the proxy's socket: what it answers to `bytes`, up to its close. A proxy that
 * closes with some of the request unread resets the connection after its answer: not an error here.
 */
async function raw(socketPath: string, bytes: string): Promise<string> {
  const socket = connect(socketPath);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {});
  socket.write(bytes);
  await once(socket, 'close');
  return Buffer.concat(chunks).toString();
}

/** A request through the proxy; a body is sent in parts, as it comes. */
function get(
  socketPath: string,
  url: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ socketPath, method: 'GET', path: url, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    outgoing.once('error', reject);
    if (body !== undefined) for (const part of body.split(' ')) outgoing.write(`${part} `);
    outgoing.end();
  });
}

describe('CONNECT', () => {
  test('an allowed destination is tunnelled both ways, each direction ending on its own', async () => {
    const socketPath = await proxy([`127.0.0.1:${echo.port}`]);
    const { status, socket } = await connectThrough(socketPath, `127.0.0.1:${echo.port}`);
    expect(status).toBe(200);
    socket.write('ping');
    expect(await receive(socket, 'echo:ping')).toBe('echo:ping');
    socket.end();
    expect(await rest(socket)).toBe('bye');
    expect(echo.received).toEqual(['ping']);
  });

  test('bytes sent right behind the CONNECT line reach the destination', async () => {
    const socketPath = await proxy([`127.0.0.1:${echo.port}`]);
    const socket = connect(socketPath);
    socket.write(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nHost: 127.0.0.1:${echo.port}\r\n\r\nearly`);
    expect(await receive(socket, 'echo:early')).toMatch(
      /^HTTP\/1\.1 200 Connection Established\r\n\r\n(.*)echo:early$/s,
    );
    socket.destroy();
  });

  test('a host not on the list is refused with 403, saying how to allow it, before any lookup', async () => {
    const lookups: string[] = [];
    const socketPath = await proxy([`127.0.0.1:${echo.port}`, 'example.com'], {
      resolve: async (name) => (lookups.push(name), ['93.184.215.14']),
    });
    const { status, body } = await refusal(socketPath, 'example.org:443');
    expect(status).toBe(403);
    expect(body).toMatch(/^durable-agent egress proxy: example\.org:443 is not on this session's allowed domains\. /);
    expect(body).toContain("the session's input allowedDomains");
    expect(body).toContain("the worker's AGENT_SANDBOX_ALLOWED_DOMAINS");
    expect((await refusal(socketPath, 'example.com:22')).status).toBe(403);
    expect(lookups).toEqual([]);
  });

  test('a listed address and port is reachable; another port of it is not', async () => {
    const socketPath = await proxy([`127.0.0.1:${echo.port}`]);
    const reached = await connectThrough(socketPath, `127.0.0.1:${echo.port}`);
    expect(reached.status).toBe(200);
    reached.socket.destroy();
    const other = await refusal(socketPath, `127.0.0.1:${echo.port + 1}`);
    expect(other.status).toBe(403);
    expect(other.body).toContain(`127.0.0.1:${echo.port + 1} is not on this session's allowed domains`);
  });

  test('no spelling of 127.0.0.1 slips past: each is that address, matched as such', async () => {
    const socketPath = await proxy([`127.0.0.1:${echo.port}`, `localhost:${echo.port}`]);
    for (const spelling of [
      '127.1',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '127.0.0.1.',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
    ]) {
      const reached = await connectThrough(socketPath, `${spelling}:${echo.port}`);
      expect(reached.status).toBe(200);
      reached.socket.destroy();
      const refused = await refusal(socketPath, `${spelling}:443`);
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('127.0.0.1:443 is not on');
    }
  });

  test('a name reaching loopback is refused, even localhost; with its address listed too, it gets through', async () => {
    const byName = await refusal(await proxy([`localhost:${echo.port}`]), `localhost:${echo.port}`);
    expect(byName.status).toBe(403);
    expect(byName.body).toContain(
      `localhost:${echo.port} is allowed (as localhost:${echo.port}), but localhost resolves only to a loopback address`,
    );
    expect(byName.body).toContain('list its address and port (e.g. 127.0.0.1:4873)');
    const withAddress = await connectThrough(
      await proxy([`localhost:${echo.port}`, `127.0.0.1:${echo.port}`]),
      `localhost:${echo.port}`,
    );
    expect(withAddress.status).toBe(200);
    withAddress.socket.write('by name');
    await receive(withAddress.socket, 'echo:by name');
    withAddress.socket.destroy();
  });

  test("a wildcard's names may not resolve to private addresses, no name to link-local ones", async () => {
    const resolve = async (name: string) => (name === 'metadata.test' ? ['169.254.169.254'] : ['10.1.2.3']);
    const socketPath = await proxy(['*.corp.test', 'metadata.test'], { resolve });
    const wildcard = await refusal(socketPath, 'git.corp.test:443');
    expect(wildcard).toEqual({
      status: 403,
      body: expect.stringContaining(
        'git.corp.test resolves only to a private address, which only an exact name entry may reach',
      ),
    });
    expect((await refusal(socketPath, 'metadata.test:80')).body).toContain(
      'metadata.test resolves only to a link-local address',
    );
  });

  test.each([
    ['NUL', 'CONNECT exa\u0000mple.com:443 HTTP/1.1\r\n\r\n', 'malformed request'],
    ['a control character', 'CONNECT exa\u0001mple.com:443 HTTP/1.1\r\n\r\n', 'malformed request'],
    ['a tab', 'CONNECT 127.0.0.1\t:443 HTTP/1.1\r\n\r\n', 'malformed request'],
    [
      'an escaped NUL',
      'CONNECT 127.0.0.1%00.example.com:443 HTTP/1.1\r\n\r\n',
      '"127.0.0.1%00.example.com:443" is no destination',
    ],
    ['an IPv6 zone', 'CONNECT [fe80::1%25lo]:443 HTTP/1.1\r\n\r\n', 'is no destination: not an IPv6 address'],
    ['an empty label', 'CONNECT 127..0.1:443 HTTP/1.1\r\n\r\n', 'is no destination: each label'],
    ['no port', 'CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n', 'is no destination: CONNECT takes host:port'],
    [
      'a plain-http target with a control character',
      'GET http://127.0.0.1\u0001/ HTTP/1.1\r\n\r\n',
      'malformed request',
    ],
  ])('a target with %s is refused with 400', async (_what, bytes, reason) => {
    const connections = echo.connections.length;
    const answer = await raw(await proxy(['127.0.0.1:443', '*.example.com', '[fe80::1]:443']), bytes);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain(reason);
    expect(echo.connections).toHaveLength(connections);
  });

  test('request headers past 16 KiB are answered 431', async () => {
    const answer = await raw(
      await proxy([`127.0.0.1:${echo.port}`]),
      `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nx-big: ${'x'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  });

  test('a destination that refuses the connection is answered 502, saying why', async () => {
    const port = await closedPort();
    const { status, body } = await refusal(await proxy([`127.0.0.1:${port}`]), `127.0.0.1:${port}`);
    expect(status).toBe(502);
    expect(body).toBe(`durable-agent egress proxy: could not connect to 127.0.0.1:${port}: ECONNREFUSED\n`);
  });

  test('a name that does not resolve within the connect timeout is answered 502', async () => {
    const socketPath = await proxy(['slow.test'], { resolve: () => new Promise(() => {}), connectTimeoutMs: 50 });
    expect(await refusal(socketPath, 'slow.test:443')).toEqual({
      status: 502,
      body: 'durable-agent egress proxy: could not resolve slow.test: timed out\n',
    });
  });

  test('an idle tunnel is closed, both sides', async () => {
    const socketPath = await proxy([`127.0.0.1:${echo.port}`], { idleTimeoutMs: 100 });
    const connections = echo.connections.length;
    const { socket } = await connectThrough(socketPath, `127.0.0.1:${echo.port}`);
    const upstream =
      echo.connections[connections] ?? (await new Promise<Socket>((resolve) => echoServer.once('connection', resolve)));
    await Promise.all([once(socket, 'close'), once(upstream, 'close')]);
  });

  test('a client that goes away closes the upstream side, and the proxy serves on', async () => {
    const socketPath = await proxy([`127.0.0.1:${echo.port}`]);
    const { socket } = await connectThrough(socketPath, `127.0.0.1:${echo.port}`);
    socket.write('x');
    await receive(socket, 'echo:x');
    const upstream = echo.connections[echo.connections.length - 1];
    socket.destroy();
    await once(upstream, 'close');
    expect((await connectThrough(socketPath, `127.0.0.1:${echo.port}`)).status).toBe(200);
  });

  test('an upstream reset closes the client side', async () => {
    const { socket } = await connectThrough(await proxy([`127.0.0.1:${echo.port}`]), `127.0.0.1:${echo.port}`);
    socket.write('reset');
    await once(socket, 'close');
  });

  test('past maxConnections a connection is closed at once; those open go on', async () => {
    const socketPath = await proxy([`127.0.0.1:${echo.port}`], { maxConnections: 1 });
    const first = await connectThrough(socketPath, `127.0.0.1:${echo.port}`);
    await expect(connectThrough(socketPath, `127.0.0.1:${echo.port}`)).rejects.toThrow();
    first.socket.write('still');
    await receive(first.socket, 'echo:still');
    first.socket.destroy();
  });

  test('close() ends open tunnels', async () => {
    const started = await EgressProxy.listen(
      join(directory, `${++proxies}.sock`),
      parseAllowedDomains([`127.0.0.1:${echo.port}`], 'test'),
    );
    const { socket } = await connectThrough(started.socketPath, `127.0.0.1:${echo.port}`);
    await Promise.all([started.close(), once(socket, 'close')]);
  });
});

describe('plain http', () => {
  test('an absolute-URI request is forwarded without hop-by-hop or Proxy-* headers, to the Host that was checked', async () => {
    const socketPath = await proxy([`127.0.0.1:${web.port}`]);
    const response = await get(socketPath, `http://127.1:${web.port}/path?q=1`, {
      'proxy-authorization': 'Basic c2VjcmV0OnNlY3JldA==',
      'proxy-connection': 'keep-alive',
      connection: 'keep-alive, x-hop',
      'x-hop': 'for the proxy',
      'x-kept': 'yes',
      host: 'other.example',
    });
    expect(response).toMatchObject({ status: 200, body: 'hello', headers: { 'x-upstream': 'yes' } });
    expect(response.headers['proxy-authenticate']).toBeUndefined();
    expect(response.headers['x-upstream-hop']).toBeUndefined();
    expect(web.seen).toMatchObject({
      method: 'GET',
      url: '/path?q=1',
      headers: { host: `127.0.0.1:${web.port}`, 'x-kept': 'yes' },
    });
    expect(Object.keys(web.seen.headers ?? {}).filter((name) => name.startsWith('proxy-') || name === 'x-hop')).toEqual(
      [],
    );
  });

  test('a chunked body stays framed, even on a GET (unframed, it would pass for the next request)', async () => {
    const socketPath = await proxy([`127.0.0.1:${web.port}`]);
    expect(
      (
        await get(
          socketPath,
          `http://127.0.0.1:${web.port}/upload`,
          { 'transfer-encoding': 'chunked' },
          'three chunked parts',
        )
      ).status,
    ).toBe(200);
    expect(web.seen).toMatchObject({
      method: 'GET',
      body: 'three chunked parts ',
      headers: { 'transfer-encoding': 'chunked' },
    });
  });

  test('refusals: a host not listed 403, an unreachable one 502, a request that is not absolute-form 400', async () => {
    const port = await closedPort();
    const socketPath = await proxy([`127.0.0.1:${web.port}`, `127.0.0.1:${port}`]);
    const notListed = await get(socketPath, `http://example.com/`);
    expect(notListed.status).toBe(403);
    expect(notListed.body).toContain("example.com:80 is not on this session's allowed domains");
    expect(await get(socketPath, `http://127.0.0.1:${port}/`)).toMatchObject({
      status: 502,
      body: expect.stringContaining('ECONNREFUSED'),
    });
    expect(await get(socketPath, '/path')).toMatchObject({
      status: 400,
      body: expect.stringContaining('a proxy takes absolute http:// URIs'),
    });
    expect(await get(socketPath, `http://user@127.0.0.1:${web.port}/`)).toMatchObject({
      status: 400,
      body: expect.stringContaining('user info'),
    });
    expect(web.seen).toEqual({});
  });

  test('an upgrade over plain http is answered 501', async () => {
    const socketPath = await proxy([`127.0.0.1:${web.port}`]);
    const answer = await raw(
      socketPath,
      `GET http://127.0.0.1:${web.port}/ HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 501 Not Implemented\r\n/);
  });
});

test('a socket path longer than a Unix socket takes is refused', async () => {
  await expect(EgressProxy.listen(join(directory, 'x'.repeat(120)), [])).rejects.toThrow(
    'a Unix socket path has at most 107 bytes',
  );
});
