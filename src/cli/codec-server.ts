/**
 * `durable-agent codec-server [--port 8081] [--host 127.0.0.1] [--namespace <ns>] [--insecure-no-auth]`:
 * Temporal's remote codec protocol over the deployment's keys, so the Web UI (`--ui-codec-endpoint`,
 * or the UI server's `TEMPORAL_CODEC_ENDPOINT`) and `temporal workflow show --codec-endpoint …` show
 * payloads decrypted. `POST /encode` and `POST /decode` take and give `{ payloads: [{ metadata, data }] }`
 * (base64), with CORS for the UI's origin (`AGENT_CODEC_CORS_ORIGINS`, default the local UI).
 *
 * It decrypts only for `Authorization: Bearer <AGENT_CODEC_AUTH>` or a browser signed in at /login
 * with that token (see codec-auth.ts), and only for the namespaces it serves. Without a token it
 * refuses to start, unless told `--insecure-no-auth`, and then it listens on loopback only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import type { Payload } from '@temporalio/common';
import { EncryptionCodec } from '../encryption/encryption-codec';
import { encryptionKeys } from '../encryption/keys';
import { UsageError } from './usage-error';
import {
  bearerMatches,
  cookieMatches,
  isLoopback,
  namespaceRefusal,
  parseCodecToken,
  servedNamespaces,
  signInCookie,
  type SignInCookie,
} from './codec-auth';

type JsonPayload = { metadata?: Record<string, string>; data?: string };

const DEFAULT_ORIGINS = 'http://localhost:8233,http://127.0.0.1:8233';
const BODY_LIMIT_BYTES = 64 * 1024 * 1024;
const SIGN_IN_LIMIT_BYTES = 4096;

export interface CodecServerSettings {
  port: number;
  host: string;
  /** Undefined only with --insecure-no-auth. */
  token?: string;
  namespaces: ReadonlySet<string>;
  origins: ReadonlySet<string>;
}

/** The command line and environment, checked: every refusal is one line naming what to set. */
export function codecServerSettings(args: string[], environment: NodeJS.ProcessEnv): CodecServerSettings {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: 'string', default: '8081' },
        host: { type: 'string', default: '127.0.0.1' },
        namespace: { type: 'string', multiple: true },
        'insecure-no-auth': { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) {
    throw new UsageError(`--port takes a port number, not ${values.port}`);
  }
  // [::1] as in a URL is ::1 to listen on.
  const host = values.host.trim().replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new UsageError('--host takes an address to listen on, e.g. 127.0.0.1');
  const token = parseCodecToken(environment.AGENT_CODEC_AUTH);
  const insecure = values['insecure-no-auth'];
  if (!token && !insecure) {
    throw new UsageError(
      'the codec server would decrypt for anyone who reaches it: set AGENT_CODEC_AUTH to the bearer token it must ' +
        'require (e.g. $(openssl rand -hex 32)), or pass --insecure-no-auth to serve loopback only, without one',
      false,
    );
  }
  if (token && insecure) {
    throw new UsageError('AGENT_CODEC_AUTH is set and --insecure-no-auth asks for no token: drop one of them', false);
  }
  if (insecure && !isLoopback(host)) {
    throw new UsageError(
      `--insecure-no-auth listens on loopback only, not --host ${host}: set AGENT_CODEC_AUTH to serve other machines`,
      false,
    );
  }
  const origins = (environment.AGENT_CODEC_CORS_ORIGINS?.trim() || DEFAULT_ORIGINS)
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  return {
    port: Number(values.port),
    host,
    ...(token ? { token } : {}),
    namespaces: servedNamespaces(values.namespace, environment),
    origins: new Set(origins),
  };
}

/** Serves until SIGINT or SIGTERM; resolves with exit code 0 then. */
export async function serveCodec(args: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  const settings = codecServerSettings(args, environment);
  const keys = encryptionKeys(environment);
  if (!keys) {
    throw new Error(
      'the codec server needs the keys payloads are encrypted with: set AGENT_ENCRYPTION_KEY or AGENT_ENCRYPTION_KEY_FILE',
    );
  }
  const { url, close } = await startCodecServer(settings, new EncryptionCodec(keys));
  const mode = settings.token
    ? `bearer token required (AGENT_CODEC_AUTH; browsers sign in at ${url}/login)`
    : 'NO AUTHENTICATION (--insecure-no-auth): anything on this machine can decrypt through it';
  console.log(
    `durable-agent codec server on ${url}: ${mode}; namespaces ${[...settings.namespaces].join(', ')}; ` +
      `key "${keys.current.id}", ${keys.byId.size} decrypting; CORS for ${[...settings.origins].join(', ')}`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => void close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

/** What answers a request: the settings, the keys' codec, and (with a token) the cookie a browser signs in with. */
interface CodecService {
  settings: CodecServerSettings;
  codec: EncryptionCodec;
  /** Set once the server listens: the cookie's name carries the port. */
  cookie?: SignInCookie;
}

export async function startCodecServer(
  settings: CodecServerSettings,
  codec: EncryptionCodec,
): Promise<{ url: string; close: () => Promise<void> }> {
  const service: CodecService = { settings, codec };
  const server = createServer((request, response) => {
    handleRequest(service, request, response).catch((error: Error) => {
      if (!response.headersSent) reply(response, 400, { message: error.message });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(new Error(`the codec server cannot listen on ${settings.host}:${settings.port}: ${error.message}`)),
    );
    server.listen(settings.port, settings.host, () => resolve());
  });
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const address = server.address() as AddressInfo;
  // A host name (localhost) goes through the resolver: check where it really landed.
  if (!settings.token && !isLoopback(address.address)) {
    await close();
    throw new UsageError(
      `--insecure-no-auth listens on loopback only, and --host ${settings.host} is ${address.address}: set AGENT_CODEC_AUTH`,
      false,
    );
  }
  if (settings.token) service.cookie = signInCookie(settings.token, address.port);
  const shown = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  return { url: `http://${shown}:${address.port}`, close };
}

async function handleRequest(service: CodecService, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { token, namespaces, origins } = service.settings;
  allowOrigin(request, response, origins);
  if (request.method === 'OPTIONS') return reply(response, 204);
  // The protocol looks only at the last part of the path, so the server can sit under any prefix.
  const path = (request.url ?? '').split('?')[0]!.replace(/\/+$/, '');
  if (path.endsWith('/login') && token && service.cookie) return signIn(request, response, token, service.cookie);
  const operation = path.endsWith('/encode') ? 'encode' : path.endsWith('/decode') ? 'decode' : undefined;
  if (request.method !== 'POST' || !operation) {
    return reply(response, 404, {
      message: `POST /encode or /decode${token ? '; GET /login to sign a browser in' : ''}`,
    });
  }
  if (token && !authorized(request, token, service.cookie)) {
    return reply(response, 401, {
      message: 'unauthorized: send Authorization: Bearer <AGENT_CODEC_AUTH>, or sign this browser in at /login',
    });
  }
  const refusal = namespaceRefusal(request.headers['x-namespace'], namespaces);
  if (refusal) return reply(response, 403, { message: refusal });
  const body = JSON.parse((await readBody(request, BODY_LIMIT_BYTES)).toString('utf8')) as { payloads?: unknown };
  if (!Array.isArray(body?.payloads)) {
    return reply(response, 400, { message: 'the body is { "payloads": [{ "metadata": {…}, "data": "<base64>" }] }' });
  }
  const payloads = body.payloads.map(fromJson);
  const { codec } = service;
  const result = operation === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
  reply(response, 200, { payloads: result.map(toJson) });
}

/** CORS for the UI's origins (AGENT_CODEC_CORS_ORIGINS): the browser sends the sign-in cookie along. */
function allowOrigin(request: IncomingMessage, response: ServerResponse, origins: ReadonlySet<string>): void {
  const origin = request.headers.origin;
  if (!origin || !(origins.has(origin) || origins.has('*'))) return;
  response.setHeader('Access-Control-Allow-Origin', origin);
  response.setHeader('Access-Control-Allow-Credentials', 'true');
  response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
  response.setHeader('Vary', 'Origin');
}

function authorized(request: IncomingMessage, token: string, cookie: SignInCookie | undefined): boolean {
  return (
    bearerMatches(request.headers.authorization, token) ||
    (cookie !== undefined && cookieMatches(request.headers.cookie, cookie))
  );
}

/** GET /login: a form for the token; POST /login: the cookie the Web UI then sends (it "includes credentials"). */
async function signIn(
  request: IncomingMessage,
  response: ServerResponse,
  token: string,
  cookie: SignInCookie,
): Promise<void> {
  // Its own page only: no framing, no scripts, and the form posts nowhere else.
  response.setHeader('Content-Security-Policy', "default-src 'none'; form-action 'self'; frame-ancestors 'none'");
  response.setHeader('Cache-Control', 'no-store');
  if (request.method === 'GET')
    return page(
      response,
      200,
      '<form method="post"><label>Token (AGENT_CODEC_AUTH) <input name="token" type="password" autofocus required></label> <button>Sign in</button></form>',
    );
  if (request.method !== 'POST') return page(response, 405, '<p>GET or POST /login.</p>');
  const given = new URLSearchParams((await readBody(request, SIGN_IN_LIMIT_BYTES)).toString('utf8')).get('token') ?? '';
  if (!bearerMatches(`Bearer ${given.trim()}`, token))
    return page(response, 401, '<p>That is not the token. <a href="login">Try again</a>.</p>');
  // SameSite=Strict: sent by the UI on the same host (another port is the same site), never from other sites' pages.
  response.setHeader('Set-Cookie', `${cookie.name}=${cookie.value}; HttpOnly; SameSite=Strict; Path=/`);
  page(
    response,
    200,
    '<p>Signed in. The Temporal Web UI in this browser decodes payloads through this server when its codec settings include credentials.</p>',
  );
}

function page(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'X-Frame-Options': 'DENY' });
  response.end(
    `<!doctype html><meta charset="utf-8"><title>durable-agent codec server</title><h1>durable-agent codec server</h1>${body}`,
  );
}

function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) request.destroy(new Error('request body too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function reply(response: ServerResponse, status: number, body?: unknown): void {
  response.writeHead(status, body === undefined ? {} : { 'Content-Type': 'application/json' });
  response.end(body === undefined ? undefined : JSON.stringify(body));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const fromJson = (payload: unknown): Payload => {
  const { metadata = {}, data = '' } = (isRecord(payload) ? payload : { data: null }) as {
    metadata?: unknown;
    data?: unknown;
  };
  if (
    !isRecord(metadata) ||
    typeof data !== 'string' ||
    Object.values(metadata).some((value) => typeof value !== 'string')
  ) {
    throw new Error('each payload is { "metadata": { "<name>": "<base64>" }, "data": "<base64>" }');
  }
  return {
    metadata: Object.fromEntries(
      Object.entries(metadata).map(([key, value]) => [key, Buffer.from(value as string, 'base64')]),
    ),
    data: Buffer.from(data, 'base64'),
  };
};

const toJson = (payload: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value ?? new Uint8Array()).toString('base64'),
    ]),
  ),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});
