/**
 * The allow-list decides by name, but whoever controls a listed name's DNS (any name at all,
 * under a wildcard) decides where it points: at 127.0.0.1, where the worker's Temporal, codec
 * server and database listen; at 169.254.169.254, the cloud metadata service and its
 * credentials; at the worker's own interfaces, where a service bound to 0.0.0.0 answers as on
 * loopback. So the proxy judges every address a name resolves to, drops those it may not dial,
 * and dials only what survives (upstream-connection.ts), with no second resolution between.
 *
 * - No name reaches loopback, unspecified, link-local, multicast or broadcast addresses, cloud
 *   metadata endpoints or the worker's own addresses: not even `localhost`.
 * - A name matched by a wildcard does not reach private ranges either; an exact name may (an
 *   intranet registry is a legitimate entry; its DNS is the operator's own).
 * - An address listed as an IP entry for that port is the operator's explicit choice and may
 *   be reached by a listed name too: `localhost:4873` with `127.0.0.1:4873`. The IP entry stays
 *   the only way to reach a loopback service, and only on its port.
 * Destinations written as addresses are not judged here: only an IP entry lets them through.
 */
import { BlockList, isIP } from 'node:net';
import { opensPort, type AllowedDomain } from './allowed-domains';
import { canonicalAddress, dottedQuad, ipv6Groups } from './canonical-host';

function ranges(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split('/');
    const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    list.addSubnet(address, prefix === undefined ? (family === 'ipv4' ? 32 : 128) : Number(prefix), family);
  }
  return list;
}

/** What no name reaches, in the order a refusal names it. */
const NEVER_BY_NAME: ReadonlyArray<readonly [string, BlockList]> = [
  ['a loopback address', ranges(['127.0.0.0/8', '::1'])],
  // 0.0.0.0 and :: connect to the local host on Linux.
  ['an unspecified address', ranges(['0.0.0.0/8', '::'])],
  // 169.254.169.254 is the metadata service of most clouds.
  ['a link-local address', ranges(['169.254.0.0/16', 'fe80::/10'])],
  // Metadata endpoints outside link-local space: Alibaba, Azure's WireServer, AWS over IPv6.
  ['a cloud metadata address', ranges(['100.100.100.200', '168.63.129.16', 'fd00:ec2::254'])],
  ['a multicast or broadcast address', ranges(['224.0.0.0/4', '255.255.255.255', 'ff00::/8'])],
];

/** RFC 1918, carrier-grade NAT (RFC 6598) and unique local IPv6 (RFC 4193). */
const PRIVATE = ranges(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7']);

export interface ScreenedAddresses {
  /** Addresses the proxy may dial, in the resolver's order. */
  permitted: string[];
  /** Why the others were dropped, each reason once, in a fixed order. */
  refused: string[];
}

export interface GuardContext {
  /** The entry that let the name through (allowed-domains.ts allowedDomainFor). */
  match: AllowedDomain;
  /** The session's whole list: its IP entries may be reached by name. */
  allowed: readonly AllowedDomain[];
  /** The worker's own interface addresses (os.networkInterfaces), canonical. */
  ownAddresses: readonly string[];
}

/** Splits what a name resolved to into the addresses the proxy may dial and why it may not dial the rest. */
export function screenAddresses(addresses: readonly string[], port: number, context: GuardContext): ScreenedAddresses {
  const permitted: string[] = [];
  const reasons = new Set<string>();
  for (const address of addresses) {
    const reason = refusal(address, port, context);
    if (reason === undefined) permitted.push(canonicalAddress(address) as string);
    else reasons.add(reason);
  }
  return { permitted, refused: REASON_ORDER.filter((reason) => reasons.has(reason)) };
}

const OWN = "one of the worker's own addresses";
const WILDCARD_PRIVATE = 'a private address, which only an exact name entry may reach';
const UNPARSABLE = 'something that is no IP address';
const REASON_ORDER = [...NEVER_BY_NAME.map(([reason]) => reason), OWN, WILDCARD_PRIVATE, UNPARSABLE];

function refusal(answer: string, port: number, context: GuardContext): string | undefined {
  const address = canonicalAddress(answer);
  if (address === undefined) return UNPARSABLE;
  if (context.allowed.some((entry) => entry.kind === 'address' && entry.host === address && opensPort(entry, port)))
    return undefined;
  // An IPv6 answer that carries an IPv4 address is delivered to it: judge both.
  const forms = [address, ...embeddedIPv4(address)];
  const within = (list: BlockList) => forms.some((form) => list.check(form, isIP(form) === 4 ? 'ipv4' : 'ipv6'));
  const never = NEVER_BY_NAME.find(([, list]) => within(list));
  if (never) return never[0];
  if (forms.some((form) => context.ownAddresses.includes(form))) return OWN;
  if (context.match.kind === 'wildcard' && within(PRIVATE)) return WILDCARD_PRIVATE;
  return undefined;
}

/**
 * The IPv4 address inside an IPv6 one where a network delivers it there: the NAT64 well-known
 * prefix 64:ff9b::/96, 6to4 2002::/16, and the deprecated IPv4-compatible ::/96. (IPv4-mapped
 * addresses are already spelled as IPv4 by canonicalAddress.)
 */
function embeddedIPv4(address: string): string[] {
  if (isIP(address) !== 6) return [];
  const groups = ipv6Groups(address);
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (groups[0] === 0x2002) return [dottedQuad(groups[1], groups[2])];
  if ((groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) || zero(0, 6))
    return [dottedQuad(groups[6], groups[7])];
  return [];
}
