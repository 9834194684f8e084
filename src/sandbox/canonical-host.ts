/**
 * One spelling per host, so that an allow-list entry and a destination compare equal exactly
 * when they name the same thing the proxy will dial. Numeric spellings are the danger: the
 * resolver reads `127.1`, `2130706433`, `0x7f.1` and `0177.0.0.1` as 127.0.0.1 (inet_aton), so
 * they become that address before any matching, and `::ffff:127.0.0.1` (IPv4-mapped IPv6)
 * reaches the IPv4 address it carries, so it is spelled as that address too.
 */
import { isIP } from 'node:net';

export interface CanonicalHost {
  kind: 'name' | 'ipv4' | 'ipv6';
  /** Lower case, no trailing dot; IPv4 dotted-quad; IPv6 compressed, without brackets. */
  host: string;
}

/**
 * What a name may hold: ASCII letters, digits, `-`, `_` (real records have it: `_acme-challenge`)
 * and dots. No whitespace, control characters or NUL (header injection, C-string truncation in
 * the resolver), no `%` (percent-encoding, IPv6 zones), no `@` or `:` (authority confusion), no
 * non-ASCII (an international name is written in its punycode form, `xn--…`).
 */
const NAME_CHARACTERS = /^[A-Za-z0-9._-]+$/;
const MAX_NAME_LENGTH = 253;
/** A last label the URL parser reads as a number: then the host is an IPv4 address or nothing. */
const NUMERIC_LAST_LABEL = /(^|\.)([0-9]+|0x[0-9a-f]*)$/i;
const MAX_LABEL_LENGTH = 63;

/** The canonical form of a host as written in an entry or a request (IPv6 in brackets); throws why it is no host. */
export function canonicalHost(text: string): CanonicalHost {
  if (text.startsWith('[') && text.endsWith(']')) return bracketedAddress(text.slice(1, -1));
  if (text.includes(':')) throw new Error('an IPv6 address is written in brackets, e.g. [::1]');
  return nameOrIPv4(text);
}

/** The canonical form of an address a resolver answered, or undefined when it is none. */
export function canonicalAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return nameOrIPv4(address).host;
  if (family === 6 && !address.includes('%')) return bracketedAddress(address).host;
  return undefined;
}

/** A host as it belongs in an authority (`host:port`, a Host header): IPv6 in brackets. */
export function formatHost(host: CanonicalHost): string {
  return host.kind === 'ipv6' ? `[${host.host}]` : host.host;
}

function bracketedAddress(inner: string): CanonicalHost {
  // isIP accepts zone ids (`fe80::1%eth0`); the URL parser does not, and a zone would make
  // one address match several spellings.
  if (inner.includes('%') || isIP(inner) !== 6) throw new Error('not an IPv6 address');
  const compressed = new URL(`http://[${inner}]/`).hostname.slice(1, -1);
  const mapped = mappedIPv4(compressed);
  return mapped === undefined ? { kind: 'ipv6', host: compressed } : { kind: 'ipv4', host: mapped };
}

function nameOrIPv4(text: string): CanonicalHost {
  if (text === '') throw new Error('no host');
  if (!NAME_CHARACTERS.test(text)) throw new Error("a host name has only letters, digits, '-', '_' and '.'");
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length === 0 || name.length > MAX_NAME_LENGTH)
    throw new Error(`a host name has 1 to ${MAX_NAME_LENGTH} characters`);
  if (name.split('.').some((label) => label.length === 0 || label.length > MAX_LABEL_LENGTH)) {
    throw new Error(`each label of a host name has 1 to ${MAX_LABEL_LENGTH} characters`);
  }
  // The WHATWG URL parser reads numeric hosts as inet_aton does (decimal, octal, hex, 1 to 4
  // parts) and refuses a name whose last label is a number but which is no valid IPv4 address
  // (`1.2.3.4.5`, `foo.123`, `09.1.1.1`): such a name would mean one thing here and perhaps
  // another to the resolver.
  let parsed: string;
  try {
    parsed = new URL(`http://${name}/`).hostname;
  } catch {
    throw new Error(
      NUMERIC_LAST_LABEL.test(name)
        ? 'ends in a number but is no valid IPv4 address'
        : 'not a valid host name (is an xn-- label valid punycode?)',
    );
  }
  return isIP(parsed) === 4 ? { kind: 'ipv4', host: parsed } : { kind: 'name', host: parsed.toLowerCase() };
}

/** The eight 16-bit groups of a compressed IPv6 address (as canonicalHost spells it). */
export function ipv6Groups(compressed: string): number[] {
  const [head, tail] = compressed.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const lead = groups(head);
  if (tail === undefined) return lead;
  const rest = groups(tail);
  return [...lead, ...new Array<number>(8 - lead.length - rest.length).fill(0), ...rest];
}

/** `a.b.c.d` from two 16-bit groups. */
export function dottedQuad(high: number, low: number): string {
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The IPv4 address of an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), else undefined. */
function mappedIPv4(compressed: string): string | undefined {
  const groups = ipv6Groups(compressed);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  return mapped ? dottedQuad(groups[6], groups[7]) : undefined;
}
