/**
 * Opening the proxy's side of a connection: the allow-list, the resolved-address guard, then a
 * TCP connection to an address that passed it. The name is resolved once and the address that
 * was checked is the address dialed: resolving again at connect time would let a DNS answer
 * that changes between the two (rebinding) steer the connection somewhere unchecked.
 */
import { lookup } from 'node:dns/promises';
import { connect, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { allowedDomainFor, formatAllowedDomain, type AllowedDomain } from './allowed-domains';
import { canonicalAddress, formatHost, type CanonicalHost } from './canonical-host';
import { screenAddresses } from './resolved-address-guard';

export interface Destination {
  host: CanonicalHost;
  port: number;
}

/** Every address a name resolves to (dns.lookup: /etc/hosts, then DNS, as the system resolves). */
export type Resolve = (name: string) => Promise<string[]>;

export interface UpstreamSettings {
  allowed: readonly AllowedDomain[];
  /** For resolving the name and connecting, together. */
  connectTimeoutMs: number;
  resolve: Resolve;
}

/** Answered with 403: the session's policy refuses the destination. */
export class EgressRefused extends Error {}

/** Answered with 502: the destination is allowed, but could not be reached. */
export class UpstreamFailed extends Error {}

export const systemResolve: Resolve = async (name) =>
  (await lookup(name, { all: true, verbatim: true })).map((answer) => answer.address);

export function formatDestination(destination: Destination): string {
  return `${formatHost(destination.host)}:${destination.port}`;
}

const HOW_TO_ALLOW =
  "To allow it, add it to the session's input allowedDomains or to the worker's AGENT_SANDBOX_ALLOWED_DOMAINS " +
  '(entries: example.com, *.example.com, example.com:8443, 127.0.0.1:4873; without a port, 80 and 443).';

/** A connected socket to the destination, or EgressRefused / UpstreamFailed saying why not. */
export async function connectUpstream(destination: Destination, settings: UpstreamSettings): Promise<Socket> {
  const target = formatDestination(destination);
  const match = allowedDomainFor(settings.allowed, destination.host, destination.port);
  if (!match) throw new EgressRefused(`${target} is not on this session's allowed domains. ${HOW_TO_ALLOW}`);
  const deadline = Date.now() + settings.connectTimeoutMs;
  const addresses =
    destination.host.kind === 'name'
      ? await permittedAddresses(destination, match, settings, deadline)
      : [destination.host.host];
  return dialFirst(addresses, destination.port, deadline, target);
}

async function permittedAddresses(
  destination: Destination,
  match: AllowedDomain,
  settings: UpstreamSettings,
  deadline: number,
): Promise<string[]> {
  const name = destination.host.host;
  const answers = await withDeadline(settings.resolve(name), deadline, `could not resolve ${name}`);
  const screened = screenAddresses(answers, destination.port, {
    match,
    allowed: settings.allowed,
    ownAddresses: ownAddresses(),
  });
  if (screened.permitted.length > 0) return screened.permitted;
  if (screened.refused.length === 0) throw new UpstreamFailed(`could not resolve ${name}: no address`);
  throw new EgressRefused(
    `${formatDestination(destination)} is allowed (as ${formatAllowedDomain(match)}), but ${name} resolves only to ${screened.refused.join(' and ')}, ` +
      'which the proxy does not dial for a name. To reach a service on the worker itself, list its address and port (e.g. 127.0.0.1:4873) and use that address.',
  );
}

/** The worker's interface addresses right now (they change: DHCP, containers, VPNs). */
function ownAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .flatMap((address) => canonicalAddress(address.address) ?? []);
}

/** The first address that accepts, tried in order until the deadline. */
async function dialFirst(
  addresses: readonly string[],
  port: number,
  deadline: number,
  target: string,
): Promise<Socket> {
  let reason = 'no address';
  for (const address of addresses) {
    try {
      return await dial(address, port, deadline);
    } catch (error) {
      reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    }
  }
  throw new UpstreamFailed(`could not connect to ${target}: ${reason}`);
}

function dial(address: string, port: number, deadline: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // allowHalfOpen: a tunnel forwards each direction's end on its own (a client that has sent
    // its request and shut down its side still gets the answer).
    const socket = connect({ host: address, port, allowHalfOpen: true });
    // From the first moment: an error on a socket without a listener would crash the worker.
    socket.on('error', () => socket.destroy());
    const timer = setTimeout(() => fail(new Error('timed out')), Math.max(deadline - Date.now(), 0));
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.once('error', fail);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', fail);
      resolve(socket);
    });
  });
}

/** A resolution that takes longer than the connect timeout fails like a connection that does. */
async function withDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new UpstreamFailed(`${what}: timed out`)), Math.max(deadline - Date.now(), 0));
  });
  try {
    return await Promise.race([promise, timeout]);
  } catch (error) {
    if (error instanceof UpstreamFailed) throw error;
    throw new UpstreamFailed(`${what}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
