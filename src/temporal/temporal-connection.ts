/**
 * Where Temporal is and how to reach it, read the way the `temporal` CLI reads it (through
 * @temporalio/envconfig): `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`,
 * `TEMPORAL_TLS` and `TEMPORAL_TLS_*`, `TEMPORAL_GRPC_META_*`, and the profile `TEMPORAL_PROFILE`
 * names (default `default`) in `TEMPORAL_CONFIG_FILE` (default
 * `~/.config/temporalio/temporal.toml`). Variables win over the file, as in the CLI. Workers,
 * our CLI and every client connect through here, so one set of settings reaches one server.
 */
import type { TLSConfig } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_TEMPORAL_NAMESPACE = 'default';

export interface TemporalSettings extends ConnectionSecurityFields {
  address: string;
  /** Whether an address was given (variable or profile): else `durable-agent run` may start a dev server. */
  addressConfigured: boolean;
  namespace: string;
}

interface ConnectionSecurityFields {
  /** TLS (true: the system's roots), an API key (implies TLS) and gRPC metadata, when configured. */
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
}

/** The connection settings; a profile file that cannot be read fails with a message naming it. */
export function temporalSettings(environment: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const variables = Object.fromEntries(
    Object.entries(environment).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== '',
    ),
  );
  let loaded;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: variables });
  } catch (error) {
    const file = variables.TEMPORAL_CONFIG_FILE ? ` (TEMPORAL_CONFIG_FILE=${variables.TEMPORAL_CONFIG_FILE})` : '';
    throw new Error(`cannot read the Temporal connection settings${file}: ${(error as Error).message}`);
  }
  const { address, tls, apiKey, metadata } = loaded.connectionOptions;
  return {
    address: address?.trim() || DEFAULT_TEMPORAL_ADDRESS,
    addressConfigured: Boolean(address?.trim()),
    namespace: loaded.namespace?.trim() || DEFAULT_TEMPORAL_NAMESPACE,
    ...(tls !== undefined && tls !== null ? { tls } : {}),
    ...(typeof apiKey === 'string' && apiKey ? { apiKey } : {}),
    ...(metadata && Object.keys(metadata).length ? { metadata: metadata as Record<string, string> } : {}),
  };
}

/** How a connection is secured: what a WorkerConfig carries beside its address. */
export type ConnectionSecurity = ConnectionSecurityFields;

/** What `Connection.connect` and `NativeConnection.connect` take. */
export function connectionOptions(
  address: string,
  settings: ConnectionSecurity = {},
): { address: string; tls?: TLSConfig | boolean; apiKey?: string; metadata?: Record<string, string> } {
  return {
    address,
    ...(settings.tls !== undefined ? { tls: settings.tls } : {}),
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.metadata ? { metadata: settings.metadata } : {}),
  };
}

/** `host:7233 (TLS, API key)`: for log lines and errors, never the key itself. */
export function describeConnection(address: string, settings: ConnectionSecurity = {}): string {
  const secured = [
    settings.tls || settings.apiKey ? 'TLS' : undefined,
    settings.tls && typeof settings.tls === 'object' && settings.tls.clientCertPair ? 'client certificate' : undefined,
    settings.apiKey ? 'API key' : undefined,
  ].filter(Boolean);
  return secured.length ? `${address} (${secured.join(', ')})` : address;
}
