/**
 * WebFetch's request: one URL fetched by the worker under the session's network rules, exactly
 * as its commands would reach it. On a filtered network the connection is opened by the egress
 * proxy's own code (connectUpstream: the session's allowed domains, then the resolved-address
 * guard, then a TCP connection to the address that was checked), so WebFetch reaches what
 * `curl` in the sandbox reaches and nothing more; on the host network (a worker that allows it,
 * or an unconfined one) it is the worker's. Sessions without network never get here: the tool
 * is not offered to them.
 *
 * Redirects within the same host (or between `www.` and the bare name) are followed; one to
 * another host is reported, not followed, as Claude Code does: the model decides whether to
 * fetch it, and that fetch goes through these rules again.
 */
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { AllowedDomain } from '../../sandbox/allowed-domains';
import { canonicalHost } from '../../sandbox/canonical-host';
import { connectUpstream, EgressRefused, systemResolve, UpstreamFailed } from '../../sandbox/upstream-connection';

/** How the worker reaches the web for one session. */
export type WebRoute = { mode: 'filtered'; allowed: readonly AllowedDomain[] } | { mode: 'host' };

export interface FetchedPage {
  /** The URL whose answer this is (after same-host redirects). */
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  body: Buffer;
  /** The body was longer than the limit and was cut there. */
  cut: boolean;
  /** A redirect to another host, not followed. */
  redirect?: string;
}

/** A URL the session may not or cannot fetch: the model's to act on. */
export class FetchRefused extends Error {}

/** Claude Code's limit on a fetched body. */
export const MAX_FETCH_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS = 10;
/** Connecting, then the whole answer. */
const CONNECT_TIMEOUT_MS = 30_000;
const FETCH_TIMEOUT_MS = 60_000;

/** `www.example.com` and `example.com` count as one host for redirects. */
function sameSite(a: URL, b: URL): boolean {
  const bare = (host: string) => host.replace(/^www\./, '');
  return a.protocol === b.protocol && a.port === b.port && bare(a.hostname) === bare(b.hostname);
}

export async function fetchPage(url: URL, route: WebRoute, signal: AbortSignal): Promise<FetchedPage> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]);
  let current = url;
  for (let hop = 0; ; hop++) {
    const response = await get(current, route, deadline);
    const location = response.headers.location;
    if (response.statusCode && [301, 302, 303, 307, 308].includes(response.statusCode) && location) {
      response.resume();
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new FetchRefused(`${current.href} redirects to ${location}, which is not a URL`);
      }
      if (!sameSite(current, next) || hop >= MAX_REDIRECTS) return redirectOf(current, response, next);
      current = next;
      continue;
    }
    const { body, cut } = await readBody(response, deadline);
    return {
      url: current.href,
      status: response.statusCode ?? 0,
      statusText: response.statusMessage ?? '',
      contentType: String(response.headers['content-type'] ?? ''),
      body: decoded(body, String(response.headers['content-encoding'] ?? ''), cut),
      cut,
    };
  }
}

function redirectOf(from: URL, response: IncomingMessage, to: URL): FetchedPage {
  return {
    url: from.href,
    status: response.statusCode ?? 0,
    statusText: response.statusMessage ?? '',
    contentType: '',
    body: Buffer.alloc(0),
    cut: false,
    redirect: to.href,
  };
}

/** One GET, its connection opened as the session's commands would open it. */
async function get(url: URL, route: WebRoute, signal: AbortSignal): Promise<IncomingMessage> {
  const https = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : https ? 443 : 80;
  const options: RequestOptions = {
    method: 'GET',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    path: `${url.pathname}${url.search}`,
    headers: {
      'user-agent': 'durable-agent WebFetch (like Claude-User)',
      accept: 'text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
    },
    signal,
  };
  if (route.mode === 'filtered') {
    const socket = await opened(url, port, route.allowed);
    const connection: Duplex = https
      ? tlsConnect({ socket, servername: tlsName(url), ALPNProtocols: ['http/1.1'] })
      : socket;
    options.createConnection = () => connection as never;
  }
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = (https && route.mode === 'host' ? httpsRequest : httpRequest)(options, resolve);
    outgoing.once('error', (error) =>
      reject(signal.aborted ? new FetchRefused(`${url.href}: no answer within ${FETCH_TIMEOUT_MS / 1000} s`) : error),
    );
    outgoing.end();
  });
}

/** The TLS server name: the host's name, none for an address. */
function tlsName(url: URL): string | undefined {
  return canonicalHost(url.hostname).kind === 'name' ? url.hostname : undefined;
}

async function opened(url: URL, port: number, allowed: readonly AllowedDomain[]) {
  try {
    const host = canonicalHost(url.hostname);
    return await connectUpstream(
      { host, port },
      { allowed, connectTimeoutMs: CONNECT_TIMEOUT_MS, resolve: systemResolve },
    );
  } catch (error) {
    if (error instanceof EgressRefused)
      throw new FetchRefused(`The session's network rules do not let it reach ${url.host}: ${error.message}`);
    if (error instanceof UpstreamFailed) throw new FetchRefused(`${url.host} could not be reached: ${error.message}`);
    throw new FetchRefused(`${url.href}: ${(error as Error).message}`);
  }
}

async function readBody(response: IncomingMessage, signal: AbortSignal): Promise<{ body: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      if (signal.aborted) break;
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes >= MAX_FETCH_BYTES) {
        response.destroy();
        return { body: Buffer.concat(chunks).subarray(0, MAX_FETCH_BYTES), cut: true };
      }
    }
  } catch (error) {
    if (chunks.length === 0) throw error;
    return { body: Buffer.concat(chunks), cut: true };
  }
  return { body: Buffer.concat(chunks), cut: false };
}

/** The body without its content encoding; a cut compressed body is decoded as far as it goes. */
function decoded(body: Buffer, encoding: string, cut: boolean): Buffer {
  // Z_SYNC_FLUSH for a cut body: what arrived, without the end. A bomb stops at a few times the limit.
  const options = { maxOutputLength: 4 * MAX_FETCH_BYTES, ...(cut ? { finishFlush: 2 } : {}) };
  try {
    if (encoding.includes('gzip')) return gunzipSync(body, options);
    if (encoding.includes('br')) return brotliDecompressSync(body, { maxOutputLength: options.maxOutputLength });
    if (encoding.includes('deflate')) return inflateSync(body, options);
  } catch (error) {
    throw new FetchRefused(`The answer's ${encoding} encoding could not be decoded: ${(error as Error).message}`);
  }
  return body;
}
