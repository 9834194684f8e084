/**
 * The hosts a session's commands may reach through the egress proxy: the worker's
 * `AGENT_SANDBOX_ALLOWED_DOMAINS` (comma-separated, replacing the default list) and a session's
 * input `allowedDomains`. Entries:
 *
 * - `example.com`: that host exactly; `*.example.com`: any name under it, not example.com itself;
 * - `127.0.0.1`, `[::1]`: that address (IPv4 shorthand such as `127.1` is read as 127.0.0.1);
 * - any of these with `:port`: that port only. Without a port, an entry opens the web ports
 *   80 and 443 only: that is what package registries and code hosts serve on, and it keeps a
 *   listed name from reaching whatever else its hosts run (ssh, databases, admin ports).
 */
import { canonicalHost, type CanonicalHost } from './canonical-host';

export interface AllowedDomain {
  /** exact: the name `host`; wildcard: any name under `host`; address: the IP `host`. */
  readonly kind: 'exact' | 'wildcard' | 'address';
  /** Canonical (canonical-host.ts): lower case, no trailing dot, IPv6 without brackets. */
  readonly host: string;
  /** The one port the entry opens; undefined: the web ports. */
  readonly port?: number;
}

/** The ports of an entry that names none. */
export const WEB_PORTS: readonly number[] = [80, 443];

/**
 * Sessions get these unless the worker's AGENT_SANDBOX_ALLOWED_DOMAINS replaces them: where the
 * common package managers and git fetch from, each by its exact name, nothing else.
 */
export const DEFAULT_ALLOWED_DOMAINS: readonly string[] = [
  'registry.npmjs.org', // npm, pnpm
  'registry.yarnpkg.com', // yarn's default registry (the npm registry under another name)
  'pypi.org', // pip's index
  'files.pythonhosted.org', // pip's downloads
  'proxy.golang.org', // go's module proxy
  'sum.golang.org', // go's checksum database, checked on every download
  'repo.maven.apache.org', // Maven Central, as Maven names it
  'repo1.maven.org', // Maven Central, as Gradle and older tools name it
  'crates.io', // cargo's API
  'index.crates.io', // cargo's sparse index
  'static.crates.io', // cargo's downloads
  'rubygems.org', // gem and bundler
  'github.com', // git over https
  'codeload.github.com', // archives of GitHub repositories (go get, npm git dependencies)
  'objects.githubusercontent.com', // GitHub release assets, to which downloads redirect
  'gitlab.com', // git over https
  'bitbucket.org', // git over https
  'deb.debian.org', // apt on Debian images
];

/** One entry, canonical; throws an error naming the entry and what is wrong with it. */
export function parseAllowedDomain(entry: string): AllowedDomain {
  try {
    return parseEntry(entry);
  } catch (error) {
    throw new Error(`${JSON.stringify(entry)}: ${(error as Error).message}`);
  }
}

/** Entries from a session or a setting (`source` names it in errors): canonical, sorted, without duplicates. */
export function parseAllowedDomains(entries: readonly string[], source: string): AllowedDomain[] {
  const parsed = entries.map((entry) => {
    try {
      return parseAllowedDomain(entry);
    } catch (error) {
      throw new Error(`${source}: ${(error as Error).message}`);
    }
  });
  return normalizeAllowedDomains(parsed);
}

/** A comma-separated setting such as AGENT_SANDBOX_ALLOWED_DOMAINS; blanks between commas are ignored. */
export function parseAllowedDomainsList(value: string, source: string): AllowedDomain[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // A list of nothing would silently cut every session off: say how to mean that.
  if (entries.length === 0)
    throw new Error(
      `${source} names no domain: leave it unset for the default list, or set AGENT_SANDBOX_NETWORK=off for no network`,
    );
  return parseAllowedDomains(entries, source);
}

/** The default list, parsed. */
export function defaultAllowedDomains(): AllowedDomain[] {
  return parseAllowedDomains(DEFAULT_ALLOWED_DOMAINS, 'the default allowed domains');
}

/** Sorted by their written form, each once: one policy has one spelling. */
export function normalizeAllowedDomains(entries: readonly AllowedDomain[]): AllowedDomain[] {
  const byText = new Map(entries.map((entry) => [formatAllowedDomain(entry), entry]));
  return [...byText.keys()].sort().map((text) => byText.get(text) as AllowedDomain);
}

/** The entry as written, canonical: `*.example.com:8443`, `[::1]:8080`. */
export function formatAllowedDomain(entry: AllowedDomain): string {
  const host =
    entry.kind === 'wildcard' ? `*.${entry.host}` : entry.host.includes(':') ? `[${entry.host}]` : entry.host;
  return entry.port === undefined ? host : `${host}:${entry.port}`;
}

/**
 * The entry that lets a command reach `host` on `port`, or undefined. An exact entry wins over a
 * wildcard: the resolved-address guard lets an exact name reach a private address, a wildcard not.
 */
export function allowedDomainFor(
  entries: readonly AllowedDomain[],
  host: CanonicalHost,
  port: number,
): AllowedDomain | undefined {
  const candidates = entries.filter((entry) => opensPort(entry, port));
  if (host.kind !== 'name') return candidates.find((entry) => entry.kind === 'address' && entry.host === host.host);
  return (
    candidates.find((entry) => entry.kind === 'exact' && entry.host === host.host) ??
    candidates.find((entry) => entry.kind === 'wildcard' && host.host.endsWith(`.${entry.host}`))
  );
}

/** Whether the entry opens `port`: its own, or the web ports when it names none. */
export function opensPort(entry: AllowedDomain, port: number): boolean {
  return entry.port === undefined ? WEB_PORTS.includes(port) : entry.port === port;
}

/** `host:port` with a strict port: digits without a leading zero, 1 to 65535. */
export function parsePort(text: string): number {
  const port = /^[1-9][0-9]{0,4}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65535)) throw new Error(`port ${JSON.stringify(text)}: use 1 to 65535`);
  return port;
}

/** Splits `host`, `host:port`, `[v6]` and `[v6]:port`; the host keeps its brackets. */
export function splitHostPort(text: string): { host: string; port?: string } {
  const bracketed = /^(\[[^\]]*\])(?::(.*))?$/.exec(text);
  if (bracketed)
    return bracketed[2] === undefined ? { host: bracketed[1] } : { host: bracketed[1], port: bracketed[2] };
  const colon = text.indexOf(':');
  // Two colons or more without brackets: an IPv6 address whose last group would pass for a port.
  if (colon === -1 || text.indexOf(':', colon + 1) !== -1) return { host: text };
  return { host: text.slice(0, colon), port: text.slice(colon + 1) };
}

function parseEntry(entry: string): AllowedDomain {
  const { host: hostText, port: portText } = splitHostPort(entry);
  const port = portText === undefined ? {} : { port: parsePort(portText) };
  if (hostText.startsWith('*.')) return { kind: 'wildcard', host: wildcardSuffix(hostText.slice(2)), ...port };
  if (hostText.includes('*')) throw new Error('a wildcard is written `*.example.com`: any name under example.com');
  const host = canonicalHost(hostText);
  return { kind: host.kind === 'name' ? 'exact' : 'address', host: host.host, ...port };
}

function wildcardSuffix(text: string): string {
  const suffix = canonicalHost(text);
  if (suffix.kind !== 'name') throw new Error('a wildcard covers names, not addresses');
  // `*.com` would open a whole top-level domain: name the domain.
  if (!suffix.host.includes('.'))
    throw new Error(`*.${suffix.host} covers a whole top-level domain: name the domain, e.g. *.example.${suffix.host}`);
  return suffix.host;
}
