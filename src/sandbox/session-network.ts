/**
 * The network a session's commands get, from what the session asks (input `network`,
 * `allowedDomains`) and what the worker allows:
 *
 * - `filtered` (the default): a network namespace of their own with only a loopback, and egress
 *   through the worker's proxy (egress-proxy.ts) to the allowed domains only: the worker's list
 *   (AGENT_SANDBOX_ALLOWED_DOMAINS, or the package registries by default) and the session's.
 *   Temporal, the codec server, the store's database, the model API and every other service of
 *   the host are out of reach;
 * - `none`: only a loopback (input `network: "none"` or `false`, or the worker's
 *   AGENT_SANDBOX_NETWORK=off for every session);
 * - `host`: the worker's own network, everything on it: only where the worker opts in
 *   (AGENT_SANDBOX_ALLOW_HOST_NETWORK=1), with a warning; elsewhere the session gets `filtered`,
 *   and a warning saying why.
 */
import type { NetworkMode } from '../shared/sandbox';
import type { SandboxRequest } from '../shared/sandbox';
import { type AllowedDomain, normalizeAllowedDomains, parseAllowedDomain } from './allowed-domains';

export interface NetworkSettings {
  /** AGENT_SANDBOX_NETWORK=off: no session has network. */
  enabled: boolean;
  /** AGENT_SANDBOX_ALLOW_HOST_NETWORK=1: a session may ask for the host's network. */
  allowHost: boolean;
  /** AGENT_SANDBOX_ALLOWED_DOMAINS, or the default list. */
  allowedDomains: readonly AllowedDomain[];
  /** Why filtered networks cannot work here (socat missing), when they cannot. */
  filterUnavailable?: string;
}

export interface SessionNetwork {
  mode: NetworkMode;
  /** filtered: what the proxy lets through. */
  allowedDomains: AllowedDomain[];
  /** What people should know: host network granted, or not granted, or a session entry not understood. */
  warnings: string[];
}

export function sessionNetwork(request: SandboxRequest | undefined, settings: NetworkSettings): SessionNetwork {
  const asked =
    request?.network === false
      ? 'none'
      : request?.network === true || request?.network === undefined
        ? 'filtered'
        : request.network;
  const warnings: string[] = [];
  if (!settings.enabled || asked === 'none') return { mode: 'none', allowedDomains: [], warnings };
  if (asked === 'host') {
    if (settings.allowHost) {
      warnings.push(
        "network \"host\": the session's commands share the worker's network and reach everything on it (Temporal, the codec server, the store's database, the model API); the worker allows it (AGENT_SANDBOX_ALLOW_HOST_NETWORK=1)",
      );
      return { mode: 'host', allowedDomains: [], warnings };
    }
    warnings.push(
      'network "host" needs AGENT_SANDBOX_ALLOW_HOST_NETWORK=1 on the worker: the session gets the filtered network instead',
    );
  }
  if (settings.filterUnavailable) {
    warnings.push(
      `the filtered network cannot run on this worker (${settings.filterUnavailable}): the session's commands have no network`,
    );
    return { mode: 'none', allowedDomains: [], warnings };
  }
  const own: AllowedDomain[] = [];
  for (const entry of request?.allowedDomains ?? []) {
    try {
      own.push(parseAllowedDomain(entry));
    } catch (error) {
      warnings.push(`allowedDomains: ${(error as Error).message}; left out`);
    }
  }
  return { mode: 'filtered', allowedDomains: normalizeAllowedDomains([...settings.allowedDomains, ...own]), warnings };
}
