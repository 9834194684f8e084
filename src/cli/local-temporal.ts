/**
 * Where the CLI finds Temporal: `TEMPORAL_ADDRESS` when set; else a server already answering on
 * 127.0.0.1:7233; else an embedded dev server it starts (and leaves running, so the Web UI
 * stays up after the run and the next run reuses it).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DEFAULT_TEMPORAL_ADDRESS, temporalSettings } from '../worker-config';
import { isListening, startDevServer } from '../dev-server/dev-server';
import { resolveTemporalCli } from '../dev-server/temporal-cli';
import { encryptionKeys } from '../encryption/keys';
import { ensureCodecServer } from './local-codec-server';

export interface LocalTemporal {
  address: string;
  /** Base URL of the Temporal Web UI, when known. */
  uiUrl?: string;
  /** Set when this process owns a server that ends with it (the SDK-download fallback). */
  shutdown?: () => Promise<void>;
  started?: string;
}

export const STATE_DIR = join(homedir(), '.durable-agent');

export async function ensureTemporal(
  environment: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<LocalTemporal> {
  const configured = temporalSettings(environment);
  if (configured.addressConfigured)
    return {
      address: configured.address,
      uiUrl: environment.TEMPORAL_UI_URL?.trim() || guessUiUrl(configured.address),
    };

  const port = Number(environment.DURABLE_AGENT_DEV_SERVER_PORT ?? 7233);
  const uiPort = Number(environment.DURABLE_AGENT_DEV_UI_PORT ?? port + 1000);
  const address = port === 7233 ? DEFAULT_TEMPORAL_ADDRESS : `127.0.0.1:${port}`;
  if (await isListening(address))
    return { address, uiUrl: environment.TEMPORAL_UI_URL?.trim() || `http://127.0.0.1:${uiPort}` };

  const stateDir = environment.DURABLE_AGENT_HOME ?? STATE_DIR;
  const cli = await resolveTemporalCli(log);
  if (cli) {
    // Encrypted payloads: the UI reads them through a codec server started beside it.
    const codec = encryptionKeys(environment) ? await ensureCodecServer(environment, stateDir, uiPort) : undefined;
    const server = await startDevServer({
      ...(codec ? { uiCodecEndpoint: codec.endpoint } : {}),
      cliPath: cli.path,
      port,
      uiPort,
      dbFilename: join(stateDir, 'temporal.db'),
      logFile: join(stateDir, 'dev-server.log'),
      detached: true,
    });
    return {
      address: server.address,
      uiUrl: server.uiUrl,
      started:
        `Started a Temporal dev server (pid ${server.pid}, data in ${join(stateDir, 'temporal.db')}); it keeps running for the Web UI. Stop it with: kill ${server.pid}` +
        (codec ? `\n${codec.message}` : ''),
    };
  }
  // Last resort: the SDK downloads the CLI itself (needs the Temporal download site).
  log(
    'No Temporal CLI found or installable; trying the SDK download of the dev server (lives as long as this process).',
  );
  const testEnvironment = await TestWorkflowEnvironment.createLocal({
    server: { ip: '127.0.0.1', port, ui: true, uiPort, dbFilename: join(stateDir, 'temporal.db') },
  });
  return {
    address: testEnvironment.address,
    uiUrl: `http://127.0.0.1:${uiPort}`,
    shutdown: () => testEnvironment.teardown(),
    started: 'Started a Temporal dev server downloaded by the SDK; it stops when this command ends.',
  };
}

function guessUiUrl(address: string): string | undefined {
  const match = address.match(/^(localhost|127\.0\.0\.1|\[::1\]):7233$/);
  return match ? `http://${match[1]}:8233` : undefined;
}

export function workflowUrl(uiUrl: string | undefined, namespace: string, workflowId: string): string | undefined {
  return uiUrl
    ? `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`
    : undefined;
}
