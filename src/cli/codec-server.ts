/**
 * `durable-agent codec-server [--port 8081] [--host 127.0.0.1]`: Temporal's remote codec protocol
 * over the deployment's keys, so the Web UI (`--ui-codec-endpoint`, or the UI server's
 * `TEMPORAL_CODEC_ENDPOINT`) and `temporal workflow show --codec-endpoint …` show payloads
 * decrypted. `POST /encode` and `POST /decode` take and give `{ payloads: [{ metadata, data }] }`
 * (base64), with CORS for the UI's origin (`AGENT_CODEC_CORS_ORIGINS`, default the local UI) and,
 * when `AGENT_CODEC_AUTH` is set, `Authorization: Bearer <it>` required.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import type { Payload } from '@temporalio/common';
import { EncryptionCodec } from '../encryption/encryption-codec';
import { encryptionKeys } from '../encryption/keys';
import { UsageError } from './cli-client';

type JsonPayload = { metadata?: Record<string, string>; data?: string };

const DEFAULT_ORIGINS = 'http://localhost:8233,http://127.0.0.1:8233';
const BODY_LIMIT_BYTES = 64 * 1024 * 1024;

export async function codecServerCommand(args: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({ args, options: { port: { type: 'string', default: '8081' }, host: { type: 'string', default: '127.0.0.1' } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes a port number, not ${values.port}`);
  const keys = encryptionKeys(environment);
  if (!keys) throw new Error('the codec server needs the keys payloads are encrypted with: set AGENT_ENCRYPTION_KEY or AGENT_ENCRYPTION_KEY_FILE');
  const codec = new EncryptionCodec(keys);
  const origins = new Set((environment.AGENT_CODEC_CORS_ORIGINS?.trim() || DEFAULT_ORIGINS).split(',').map((origin) => origin.trim()));
  const token = environment.AGENT_CODEC_AUTH?.trim();
  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => reply(response, 400, { message: error.message }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const origin = request.headers.origin;
    if (origin && (origins.has(origin) || origins.has('*'))) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      response.setHeader('Vary', 'Origin');
    }
    if (request.method === 'OPTIONS') return reply(response, 204);
    const path = (request.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    const operation = path.endsWith('/encode') ? 'encode' : path.endsWith('/decode') ? 'decode' : undefined;
    if (request.method !== 'POST' || !operation) return reply(response, 404, { message: 'POST /encode or /decode' });
    if (token && !authorized(request.headers.authorization, token)) return reply(response, 401, { message: 'unauthorized' });
    const body = JSON.parse(await readBody(request)) as { payloads?: JsonPayload[] };
    const payloads = (body.payloads ?? []).map(fromJson);
    const result = operation === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
    reply(response, 200, { payloads: result.map(toJson) });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, values.host, () => resolve());
  });
  const address = server.address() as { port: number };
  console.log(`durable-agent codec server on http://${values.host}:${address.port} (key "${keys.current.id}", ${keys.byId.size} decrypting; ${token ? 'bearer token required' : 'no token: AGENT_CODEC_AUTH unset'}; CORS for ${[...origins].join(', ')})`);
  await new Promise<void>((resolve) => {
    const stop = () => server.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

function authorized(header: string | undefined, token: string): boolean {
  const expected = Buffer.from(token.startsWith('Bearer ') ? token : `Bearer ${token}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) request.destroy(new Error('request body too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function reply(response: ServerResponse, status: number, body?: unknown): void {
  response.writeHead(status, body === undefined ? {} : { 'Content-Type': 'application/json' });
  response.end(body === undefined ? undefined : JSON.stringify(body));
}

const fromJson = ({ metadata = {}, data = '' }: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
  data: Buffer.from(data, 'base64'),
});

const toJson = (payload: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? new Uint8Array()).toString('base64')])),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});
