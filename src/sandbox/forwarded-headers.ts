/**
 * The headers a proxy passes on. Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection,
 * not the message, and those the Connection header names join them. `Proxy-*` headers are for
 * this proxy only: a Proxy-Authorization forwarded upstream would hand the client's proxy
 * credentials to every site it visits.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

export function forwardedHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase()),
  );
  const forwarded: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || name.startsWith('proxy-')) continue;
    forwarded[name] = value;
  }
  return forwarded;
}
