/**
 * Where a proxy client asks to go: `CONNECT host:port` (a tunnel, for https and anything else
 * over TCP) or an absolute URI (`GET http://host/path`, plain http). Both parse through the same
 * host rules as the allow-list (canonical-host.ts), so they are matched in the spelling dialed.
 */
import { parsePort, splitHostPort } from './allowed-domains';
import { canonicalHost, formatHost } from './canonical-host';
import type { Destination } from './upstream-connection';

/** A request's target, throwing an error that quotes it (escaped, cut short) and says why it is none. */
function quoted<T>(text: string, parse: (text: string) => T): T {
  try {
    return parse(text);
  } catch (error) {
    throw new Error(`${JSON.stringify(text.slice(0, 200))} is no destination: ${(error as Error).message}`);
  }
}

/** The target of a CONNECT (`host:port`, `[v6]:port`; the port is required); throws why it is none. */
export function connectTarget(text: string): Destination {
  return quoted(text, () => {
    const { host, port } = splitHostPort(text);
    const canonical = canonicalHost(host);
    if (port === undefined) throw new Error('CONNECT takes host:port');
    return { host: canonical, port: parsePort(port) };
  });
}

/**
 * The destination and origin-form path of an absolute http URI. The authority is read here,
 * not by a URL parser that would decode percent-escapes and accept user info
 * (`http://allowed.example@other.example/`): what is matched is what was written.
 */
export function absoluteTarget(url: string): { destination: Destination; path: string } {
  return quoted(url, parseAbsolute);
}

/** The Host header for a destination: the default port (80) left out. */
export function hostHeader(destination: Destination): string {
  const host = formatHost(destination.host);
  return destination.port === 80 ? host : `${host}:${destination.port}`;
}

function parseAbsolute(url: string): { destination: Destination; path: string } {
  const parts = /^http:\/\/([^/?#]*)([/?][^#]*)?$/i.exec(url);
  if (!parts) throw new Error('a proxy takes absolute http:// URIs (use CONNECT for https)');
  const [, authority, rest] = parts;
  if (authority.includes('@')) throw new Error('user info in the URI is not forwarded: send an Authorization header');
  const { host, port } = splitHostPort(authority);
  const path = rest === undefined ? '/' : rest.startsWith('?') ? `/${rest}` : rest;
  return { destination: { host: canonicalHost(host), port: port === undefined ? 80 : parsePort(port) }, path };
}
