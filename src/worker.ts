/**
 * `npm run worker`: polls the task queue and runs agent workflows and their activities.
 * Configuration comes from the environment only (see worker-config.ts and docs/environment.md).
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { hostname } from 'node:os';
import {
  DefaultLogger,
  type LogLevel,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { CommandSandbox, SandboxSettings } from './sandbox/command-sandbox';
import { resolveSandbox } from './sandbox/resolve-sandbox';
import { agentDataConverter, describeEncryption } from './temporal/data-converter';
import { openStore, type Store } from './store/open-store';
import { describeStore } from './store/store-setting';
import { HEARTBEAT_THROTTLE_MS, STICKY_QUEUE_TIMEOUT_MS } from './shared/limits';
import { hostTaskQueue } from './shared/contract';
import { LEASE_KEEPER_HEARTBEAT_THROTTLE_MS, leaseTaskQueue, MAX_LEASE_KEEPERS } from './shared/workdir-lease';
import { AGENT_SEARCH_ATTRIBUTES } from './shared/search-attributes';
import { workflowBundle } from './workflow-bundle';
import {
  hasApiCredentials,
  MISSING_API_KEY_MESSAGE,
  type WorkerConfig,
  workerConfigFromEnvironment,
} from './worker-config';
import { connectionOptions, describeConnection } from './temporal/temporal-connection';
import type { Tracing } from './telemetry/tracing';
import { DROPPED_WORKFLOW_SPANS, tracingEnabled } from './telemetry/tracing-setting';
import { metricsAddress, runtimeTelemetry } from './telemetry/metrics';
import { becomeCurrentIfNone, versionedWorkerOptions, waitForVersionTaskQueues } from './temporal/deployment';

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
/** How the worker registers each of our search attributes' types on a server that lacks them. */
const INDEXED_VALUE_TYPES: Partial<Record<SearchAttributeType, temporal.api.enums.v1.IndexedValueType>> = {
  [SearchAttributeType.INT]: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  [SearchAttributeType.DOUBLE]: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  [SearchAttributeType.DATETIME]: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
};

export interface CreateWorkerOptions {
  /** A prebuilt workflow bundle (tests and the CLI reuse one instead of bundling again). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  connection?: NativeConnection;
  /** Worker interceptors (tracing, metrics, fault injection in tests). */
  interceptors?: WorkerOptions['interceptors'];
  /** Where a warning goes (commands unconfined); console.warn by default. */
  warn?: (line: string) => void;
  /** OpenTelemetry tracing (setUpTracing); off when absent. */
  tracing?: Tracing;
}

/**
 * One host's worker: two Temporal workers on one connection. The shared queue runs workflows,
 * model calls and compaction (any host serves them), and every activity of sessions recorded
 * before hosts; the host queue (`<queue>@<host id>`) runs the workspace activities of the
 * sessions whose workdir is on this host.
 */
export class AgentWorker {
  constructor(
    readonly shared: Worker,
    /** Absent without AGENT_HOST_ID (one host). */
    readonly host: Worker | undefined,
    readonly hostId: string | undefined,
    /** Its sandbox: the egress proxies close with the worker. */
    private readonly sandbox?: CommandSandbox,
    /** The workdir lease keepers of the sessions whose workdir is on this host. */
    readonly leases?: Worker,
  ) {}

  private get workers(): Worker[] {
    return [this.shared, ...(this.host ? [this.host] : []), ...(this.leases ? [this.leases] : [])];
  }

  /** Both run until shutdown; one failing stops the other. */
  async run(): Promise<void> {
    try {
      await Promise.all(this.workers.map((worker) => worker.run()));
    } catch (error) {
      this.shutdown();
      throw error;
    } finally {
      await this.sandbox?.close().catch(() => {});
    }
  }

  shutdown(): void {
    for (const worker of this.workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  }

  getState(): ReturnType<Worker['getState']> {
    return this.shared.getState();
  }
}

export async function createWorker(config: WorkerConfig, options: CreateWorkerOptions = {}): Promise<AgentWorker> {
  // Git would take a missing file for an empty config: a typo must not silently drop the credentials.
  if (config.gitConfig)
    await access(config.gitConfig, constants.R_OK).catch(() => {
      throw new Error(
        `AGENT_GIT_CONFIG=${config.gitConfig}: no readable file there (a git config file for the clone and push of repo sessions)`,
      );
    });
  const { sandbox, store, connection, createActivities } = await startParts(config, options);
  const warn = options.warn ?? console.warn;
  if (sandbox.kind === 'none')
    warn(`durable-agent worker: commands run unconfined, with the worker's privileges: ${sandbox.reason}`);
  for (const warning of sandboxWarnings(sandbox, config.sandbox)) warn(`durable-agent worker: ${warning}`);
  const activities = createActivities({ ...config, sandbox, store });
  const common = {
    connection,
    namespace: config.namespace,
    // The host is in every ActivityTaskStarted event: where each call ran shows in history.
    identity: `${config.hostId ?? hostname()}/${process.pid}`,
    activities,
    interceptors: mergeInterceptors(options.interceptors, options.tracing?.workerOptions.interceptors),
    // The workflow tells tracing when a run ends (a sink): traced, or dropped.
    sinks: options.tracing?.workerOptions.sinks ?? DROPPED_WORKFLOW_SPANS,
    // Interrupts reach running calls within HEARTBEAT_THROTTLE_MS; a dead worker's sessions move on quickly.
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MS,
    dataConverter: agentDataConverter(store, config.encryption),
  };
  const shared = await Worker.create({
    ...common,
    ...(config.deployment ? versionedWorkerOptions(config.deployment) : {}),
    taskQueue: config.taskQueue,
    workflowBundle: options.workflowBundle ?? (await workflowBundle()),
    stickyQueueScheduleToStartTimeout: config.stickyQueueTimeoutMs ?? STICKY_QUEUE_TIMEOUT_MS,
  });
  const host = config.hostId
    ? await Worker.create({
        ...common,
        ...(config.deployment ? versionedWorkerOptions(config.deployment) : {}),
        taskQueue: hostTaskQueue(config.taskQueue, config.hostId),
      })
    : undefined;
  // Workdir lease keepers: long, idle activities, on a queue of their own (see leaseTaskQueue);
  // their heartbeats are throttled to the keeper's timeout, not the interrupts' quarter second.
  const leases = await Worker.create({
    ...common,
    ...(config.deployment ? versionedWorkerOptions(config.deployment) : {}),
    activities: { keepWorkdirLease: activities.keepWorkdirLease },
    taskQueue: leaseTaskQueue(config.taskQueue, config.hostId),
    maxConcurrentActivityTaskExecutions: MAX_LEASE_KEEPERS,
    maxHeartbeatThrottleInterval: LEASE_KEEPER_HEARTBEAT_THROTTLE_MS,
  });
  return new AgentWorker(shared, host, config.hostId, sandbox, leases);
}

/**
 * The sandbox, the store, the connection and the search attributes, started together, and the
 * activities' module. All or nothing: what did start is closed again when another part fails.
 */
async function startParts(config: WorkerConfig, options: CreateWorkerOptions) {
  // Independent of each other, so all at once: a worker started again after a crash polls
  // sooner, and the sessions it takes over wait less (each is a round trip or a process).
  const starting = Promise.allSettled([
    resolveSandbox(config.sandbox),
    openStore(config.store, config.encryption),
    options.connection ?? connectNative(config),
    ensureSearchAttributes(config),
  ] as const);
  // Loaded while those wait on the network and the probe (a second of CPU on a loaded machine).
  const { createActivities } = await import('./activities');
  const started = await starting;
  const [sandbox, store, connection] = started.map((outcome) =>
    outcome.status === 'fulfilled' ? outcome.value : undefined,
  ) as [CommandSandbox?, Store?, NativeConnection?];
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed || !sandbox || !store || !connection) {
    // What did start is closed again: a failed start leaves no connection or sandbox behind.
    await Promise.allSettled([sandbox?.close(), store?.close(), options.connection ? undefined : connection?.close()]);
    throw (failed as PromiseRejectedResult).reason;
  }
  return { sandbox, store, connection, createActivities };
}

function connectNative(config: WorkerConfig): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptions(config.address, config.connection)).catch((error: unknown) => {
    throw new Error(
      `cannot connect to Temporal at ${describeConnection(config.address, config.connection)} (TEMPORAL_ADDRESS, TEMPORAL_TLS_*, TEMPORAL_API_KEY or the profile): ${(error as Error).message}`,
    );
  });
}

/** What an operator should know of the sandbox at start: no filtered network here, root-mapped sandboxes. */
function sandboxWarnings(sandbox: CommandSandbox, settings: SandboxSettings): string[] {
  if (sandbox.kind !== 'bwrap') return [];
  const warnings = [
    ...sandbox.startWarnings,
    ...sandbox.network().warnings.filter((warning) => warning.includes('cannot run on this worker')),
  ];
  if (process.getuid?.() === 0 && settings.sandboxUid === 0) {
    warnings.push(
      "AGENT_SANDBOX_UID=0: sandboxes run mapped to root, so the files commands make are root's on the host (set-uid binaries included)",
    );
  }
  return warnings;
}

/**
 * Sessions upsert AgentTurn, AgentStatus, AgentLastTransition and AgentCostUsd; a server without them would
 * fail those workflow tasks. Our dev server and docker-compose register them; for any other
 * server the worker tries once at startup (self-hosted servers allow it; Temporal Cloud does not,
 * and there they are registered in the namespace settings).
 */
export async function ensureSearchAttributes(config: WorkerConfig): Promise<void> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({
      ...connectionOptions(config.address, config.connection),
      connectTimeout: 5000,
    });
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: config.namespace });
    const missing = AGENT_SEARCH_ATTRIBUTES.filter((key) => !(key.name in (customAttributes ?? {})));
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace: config.namespace,
      searchAttributes: Object.fromEntries(
        missing.map((key) => [key.name, INDEXED_VALUE_TYPES[key.type] ?? IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
    console.log(`durable-agent worker: registered search attributes ${missing.map((key) => key.name).join(', ')}`);
  } catch (error) {
    console.warn(
      `durable-agent worker: could not check or register the search attributes ${AGENT_SEARCH_ATTRIBUTES.map((key) => key.name).join(', ')} ` +
        `(${(error as Error).message}). Register them on the server, or sessions will fail to update them.`,
    );
  } finally {
    await connection?.close();
  }
}

/** A versioned worker says which version it is, and makes it current on a deployment's first deploy. */
async function announceVersion(config: WorkerConfig): Promise<void> {
  const deployment = config.deployment!;
  const connection = await Connection.connect(connectionOptions(config.address, config.connection));
  try {
    const taskQueues = [
      config.taskQueue,
      ...(config.hostId ? [hostTaskQueue(config.taskQueue, config.hostId)] : []),
      leaseTaskQueue(config.taskQueue, config.hostId),
    ];
    if (!(await waitForVersionTaskQueues(connection, config.namespace, deployment, taskQueues))) {
      console.warn(
        `durable-agent worker: version ${deployment.deploymentName}:${deployment.buildId}: the server has not seen it poll all of ${taskQueues.join(', ')} yet; set-current-version may refuse it until it has`,
      );
    }
    const outcome = await becomeCurrentIfNone(
      connection,
      config.namespace,
      deployment,
      `${config.hostId ?? hostname()}/${process.pid}`,
    );
    const current =
      outcome === 'other_current'
        ? 'new sessions go to the current version until this one is made current: temporal worker deployment set-current-version'
        : 'the current version: new sessions start here';
    console.log(
      `durable-agent worker: version ${deployment.deploymentName}:${deployment.buildId}, sessions pinned to the version they start on; ${current}`,
    );
  } catch (error) {
    console.warn(
      `durable-agent worker: version ${deployment.deploymentName}:${deployment.buildId}: ${(error as Error).message}`,
    );
  } finally {
    await connection.close();
  }
}

/** The caller's interceptors (tests inject faults) and tracing's, activity ones in that order. */
function mergeInterceptors(
  given: WorkerOptions['interceptors'],
  tracing: WorkerOptions['interceptors'],
): WorkerOptions['interceptors'] {
  return { ...given, activity: [...(given?.activity ?? []), ...(tracing?.activity ?? [])] };
}

async function main(): Promise<void> {
  const level = (process.env.AGENT_LOG_LEVEL?.toUpperCase() ?? 'INFO') as LogLevel;
  Runtime.install({ logger: new DefaultLogger(level), ...runtimeTelemetry(process.env) });
  const metrics = metricsAddress(process.env);
  if (metrics) console.log(`durable-agent worker: Prometheus metrics on http://${metrics}/metrics`);
  const config = workerConfigFromEnvironment();
  if (!hasApiCredentials(config)) {
    console.error(`durable-agent worker: ${MISSING_API_KEY_MESSAGE}`);
    process.exit(1);
  }
  // OpenTelemetry's SDK loads only when traces go somewhere.
  const tracing = tracingEnabled(process.env)
    ? (await import('./telemetry/tracing')).setUpTracing(process.env)
    : undefined;
  const worker = await createWorker(config, {
    workflowBundle: await workflowBundle(process.env, console.log),
    ...(tracing ? { tracing } : {}),
  });
  console.log(
    `durable-agent worker: task queue "${config.taskQueue}"${config.hostId ? ` and host queue "${hostTaskQueue(config.taskQueue, config.hostId)}"` : ''} on ${describeConnection(config.address, config.connection)} (namespace ${config.namespace}), ` +
      `default model ${config.defaultModel}, store ${describeStore(config.store)}; ${describeEncryption(config.encryption)}`,
  );
  if (tracing)
    console.log(
      `durable-agent worker: tracing to ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT} (OTLP/HTTP)`,
    );
  // run() resolves after SIGINT/SIGTERM: in-flight activities are given time to finish.
  const running = worker.run();
  if (config.deployment) await announceVersion(config);
  await running;
  await tracing?.shutdown();
}

/** The worker process (`npm run worker` through bin/worker.js, or `node dist/worker.js`): a failure ends it. */
export function runWorkerProcess(): void {
  main().catch((error: unknown) => {
    console.error('durable-agent worker failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

if (require.main === module) runWorkerProcess();
