/**
 * What `run` and `fork` share: start a session and follow it to its end, with a worker of its
 * own here (and a local dev server when none answers) unless told otherwise. Loaded only by
 * those two commands: it brings in the Temporal client and worker, and (with a worker) the
 * worker's activities, the model SDK and OpenTelemetry.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { WORKFLOW_TYPE } from '../shared/contract';
import type { AgentInput } from '../shared/input';
import { openStore, type Store } from '../store/open-store';
import { agentDataConverter } from '../temporal/data-converter';
import { connectionOptions } from '../temporal/temporal-connection';
import type { Tracing } from '../telemetry/tracing';
import {
  hasApiCredentials,
  MISSING_API_KEY_MESSAGE,
  type WorkerConfig,
  workerConfigFromEnvironment,
} from '../worker-config';
import { withLongPromptStored } from './big-prompt';
import { SessionFollower } from './follow';
import { ensureTemporal, type LocalTemporal, workflowUrl } from './local-temporal';
import { openCliLog } from './log-file';
import { staticSummaryOf } from './static-summary';

export interface StartOptions {
  /** False: workers run elsewhere (`--no-worker`). */
  startWorker: boolean;
  workflowId?: string;
  json?: boolean;
  verbose?: boolean;
}

/** Builds the session's input once the client is connected (a fork reads its original first). */
export type PrepareSession = (client: Client) => Promise<{ input: AgentInput; workflowId?: string }>;

/** The worker `run` embeds, on a connection of its own. */
interface EmbeddedWorker {
  tracing: Tracing | undefined;
  stop(): Promise<void>;
}

/**
 * Starts a session and follows it to its end: with a worker of its own here (and a local dev
 * server when none answers) unless `startWorker` is false. Resolves with the exit code.
 */
export async function startAndFollow(
  environment: NodeJS.ProcessEnv,
  options: StartOptions,
  prepare: PrepareSession,
): Promise<number> {
  const config = workerConfigFromEnvironment(environment);
  // Checked before anything starts: without a key the session could only fail later.
  if (options.startWorker && !hasApiCredentials(config)) throw new Error(MISSING_API_KEY_MESSAGE);
  // Worker and SDK logs go to a file: the terminal shows the session, not attempts' stack traces.
  const log = openCliLog(environment, options.verbose === true);
  Runtime.install({ logger: log.logger });
  // With --json, stdout is NDJSON only: what people read goes to stderr.
  const say = options.json ? (line: string) => console.error(line) : (line: string) => console.log(line);
  const temporal = await ensureTemporal(environment, (line) => console.error(line));
  if (temporal.started) console.error(temporal.started);
  // A local server found or started here is plaintext: TLS settings are for a configured address.
  if (config.address !== temporal.address) config.connection = {};
  config.address = temporal.address;

  const worker = options.startWorker ? await startEmbeddedWorker(config, environment) : undefined;
  const connection = await Connection.connect(connectionOptions(config.address, config.connection));
  const store = await openStore(config.store, config.encryption);
  const client = new Client({
    connection,
    namespace: config.namespace,
    dataConverter: agentDataConverter(store, config.encryption),
  });
  const session = new SessionStart(client, config, temporal, store, say, worker ? log.path : undefined);
  try {
    return await session.startAndFollow(options, prepare);
  } finally {
    if (session.link) say(`Temporal UI: ${session.link}`);
    await worker?.stop();
    await connection.close();
    await store.close();
    await temporal.shutdown?.();
    await worker?.tracing?.shutdown();
    await log.close();
  }
}

async function startEmbeddedWorker(config: WorkerConfig, environment: NodeJS.ProcessEnv): Promise<EmbeddedWorker> {
  const nativeConnection = await NativeConnection.connect(connectionOptions(config.address, config.connection));
  // OTEL_EXPORTER_OTLP_ENDPOINT traces the embedded worker as it does `npm run worker`.
  const tracing = (await import('../telemetry/tracing')).setUpTracing(environment);
  const worker = await (
    await import('../worker')
  ).createWorker(config, { connection: nativeConnection, ...(tracing ? { tracing } : {}) });
  const running = worker.run();
  return {
    tracing,
    async stop() {
      worker.shutdown();
      await running.catch(() => undefined);
      await nativeConnection.close();
    },
  };
}

/** One session started and followed; `link` is its Temporal UI page once it has started. */
class SessionStart {
  link: string | undefined;

  constructor(
    private readonly client: Client,
    private readonly config: WorkerConfig,
    private readonly temporal: LocalTemporal,
    private readonly store: Store,
    private readonly say: (line: string) => void,
    /** Where the embedded worker logs; undefined without one. */
    private readonly workerLog: string | undefined,
  ) {}

  async startAndFollow(options: StartOptions, prepare: PrepareSession): Promise<number> {
    const prepared = await prepare(this.client);
    const input = await withLongPromptStored(prepared.input, this.store.content);
    const workflowId =
      options.workflowId ?? prepared.workflowId ?? `agent-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const start = () => this.start(workflowId, input, prepared.input.prompt);
    return new SessionFollower(this.client, workflowId, {
      store: this.store,
      json: options.json === true,
      start,
    }).follow();
  }

  /** Starts the workflow (the follower calls this once it listens) and says where to see it. */
  private async start(workflowId: string, input: AgentInput, prompt: string | undefined): Promise<void> {
    const staticSummary = staticSummaryOf(prompt);
    await this.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: this.config.taskQueue,
      workflowId,
      args: [input],
      ...(staticSummary ? { staticSummary } : {}),
    });
    this.link = workflowUrl(this.temporal.uiUrl, this.config.namespace, workflowId);
    this.say(
      `Started workflow ${workflowId} on task queue ${this.config.taskQueue}${this.link ? `\nTemporal UI: ${this.link}` : ''}${this.workerLog ? `\nWorker logs: ${this.workerLog}` : ''}`,
    );
  }
}
