/**
 * What a session asks of its commands' sandbox, as its input says it and as activities receive
 * it: extra environment variables, the network mode, and the hosts its commands may reach through
 * the worker's filtering proxy. Plain data and syntax only: the worker parses entries for real
 * (src/activities/sandbox/allowed-domains.ts).
 */
import { z } from 'zod';

/**
 * How a session's commands reach the network: `filtered` through the worker's proxy, to the
 * allowed domains only; `none`: not at all; `host`: the worker's own network, everything on it
 * (only where the worker allows it: AGENT_SANDBOX_ALLOW_HOST_NETWORK=1).
 */
export type NetworkMode = 'filtered' | 'none' | 'host';

/** Entries a session may add at most. */
export const MAX_ALLOWED_DOMAINS = 200;

/**
 * `example.com`, `*.example.com`, `host:port`, `127.0.0.1:4873`, `[::1]:8080`: letters, digits,
 * `-`, `_`, `.`, an optional `*.` first and `:port` last. What the proxy accepts is checked again
 * by the worker, which refuses spellings this lets through (a bad IPv4 shorthand, say).
 */
export const allowedDomainSchema = z
  .string()
  .max(260)
  .regex(
    /^(\*\.)?([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$/,
    'must look like example.com, *.example.com, host:port or 127.0.0.1:4873',
  );

/**
 * The host an `https://` or `http://` remote is fetched from, as an allowed-domain entry (its
 * port when the URL names one): a `repo` session's commands may fetch and push to it. Other
 * remotes (ssh, file) go nowhere through the proxy: undefined.
 */
export function remoteHost(url: string): string | undefined {
  const match = /^https?:\/\/(?:[^@/?#]*@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:[0-9]{1,5})?(?:[/?#]|$)/.exec(url);
  if (!match) return undefined;
  const entry = `${match[1]}${match[2] ?? ''}`;
  return allowedDomainSchema.safeParse(entry).success ? entry : undefined;
}

/** The hosts a session adds to the worker's allowed domains: its input's, and a `repo`'s remote. */
export function sessionAllowedDomains(input: { allowedDomains?: readonly string[]; repo?: { url: string } }): string[] {
  const repoHost = input.repo ? remoteHost(input.repo.url) : undefined;
  return [...new Set([...(input.allowedDomains ?? []), ...(repoHost ? [repoHost] : [])])];
}

/** A session's wishes for the sandbox of its commands. */
export interface SandboxRequest {
  /** Extra environment variables (input `sandboxEnv`). */
  env?: Record<string, string>;
  /**
   * Input `network`, when not the default: `'none'` (or `false`, its older spelling), `'host'`
   * (only where the worker allows it), `'filtered'`. Absent (or `true`): filtered.
   */
  network?: boolean | NetworkMode;
  /** Hosts the session's commands may reach through the proxy besides the worker's list (input `allowedDomains`, a `repo`'s host). */
  allowedDomains?: string[];
}

/** The network the preparing worker gives the session's commands (the transcript's session entry shows it). */
export interface PreparedNetwork {
  mode: NetworkMode;
  /** filtered: the hosts the proxy lets through, as written. */
  allowedDomains?: string[];
  /** Host network granted or refused, an allowed domain not understood. */
  warnings?: string[];
}
