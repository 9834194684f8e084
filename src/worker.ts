/**
 * `npm run worker`: polls the task queue and runs agent workflows and their activities.
 * Configuration comes from the environment only (see worker-config.ts and the README).
 */
import { DefaultLogger, type LogLevel, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities';
import { hasApiCredentials, MISSING_API_KEY_MESSAGE, type WorkerConfig, workerConfigFromEnvironment } from './worker-config';

export interface CreateWorkerOptions {
  /** A prebuilt workflow bundle (tests and the CLI reuse one instead of bundling again). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  connection?: NativeConnection;
}

export async function createWorker(config: WorkerConfig, options: CreateWorkerOptions = {}): Promise<Worker> {
  const connection =
    options.connection ??
    (await NativeConnection.connect({ address: config.address }).catch((error: unknown) => {
      throw new Error(`cannot connect to Temporal at ${config.address} (TEMPORAL_ADDRESS): ${(error as Error).message}`);
    }));
  return Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: require.resolve('./workflows') }),
    activities: createActivities(config),
  });
}

async function main(): Promise<void> {
  const level = (process.env.AGENT_LOG_LEVEL?.toUpperCase() ?? 'INFO') as LogLevel;
  Runtime.install({ logger: new DefaultLogger(level) });
  const config = workerConfigFromEnvironment();
  if (!hasApiCredentials(config)) {
    console.error(`durable-agent worker: ${MISSING_API_KEY_MESSAGE}`);
    process.exit(1);
  }
  const bundlePath = process.env.AGENT_WORKFLOW_BUNDLE;
  const worker = await createWorker(config, bundlePath ? { workflowBundle: { codePath: bundlePath } } : {});
  console.log(
    `durable-agent worker: task queue "${config.taskQueue}" on ${config.address} (namespace ${config.namespace}), ` +
      `default model ${config.defaultModel}, content store ${config.contentDir}`,
  );
  // run() resolves after SIGINT/SIGTERM: in-flight activities are given time to finish.
  await worker.run();
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error('durable-agent worker failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
