/**
 * Integration harness: a real worker (in this process, or as a separate process that tests can
 * SIGKILL) on the dev server started by global-setup, a Temporal client, and a fake model.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, makeTelemetryFilterString } from '@temporalio/worker';
import type { AgentInput } from '../../src/shared/input';
import type { AgentResult } from '../../src/shared/contract';
import { contentExternalStorage } from '../../src/store/external-storage';
import { openStore, type Store } from '../../src/store/open-store';
import { type StoreSetting, storeSetting } from '../../src/store/store-setting';
import { type AgentWorker, createWorker, type CreateWorkerOptions } from '../../src/worker';
import { sandboxSettings, type WorkerConfig } from '../../src/worker-config';
import { FakeAnthropicServer, type FakeHandler } from './fake-anthropic';
import { PROJECT_ROOT, scratchDir, TEST_TMP } from './paths';

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // Keep test output readable: the worker logs errors only (failed workflows are expected here).
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
  });
}

export function temporalAddress(): string {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address)
    throw new Error('TEMPORAL_ADDRESS is not set: integration tests run under test/support/global-setup.ts');
  return address;
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/** A throwaway repository with the given files. */
export function makeRepo(files: Record<string, string>): string {
  const root = scratchDir('repo');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** Resolves once a spawned process prints a line matching `pattern` (a worker: `durable-agent worker: task queue`). */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before printing ${pattern}: ${seen}`)));
  });
}

/** SIGKILL, resolved once the process is gone (a worker killed as a crash would). */
export function killProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export class Harness {
  private workers: { worker: AgentWorker; running: Promise<void> }[] = [];
  private processes: ChildProcess[] = [];

  private constructor(
    readonly fake: FakeAnthropicServer,
    readonly client: Client,
    private readonly connection: Connection,
    readonly taskQueue: string,
    /** The file store's directory (the default); with AGENT_TEST_STORE, workers and clients use that store instead. */
    readonly contentDir: string,
    readonly store: Store,
  ) {}

  /** The store as workers and clients name it (`AGENT_STORE`). */
  storeEnvironment(): { AGENT_STORE: string } {
    const setting = this.store.setting;
    return { AGENT_STORE: setting.kind === 'file' ? `file://${setting.directory}` : setting.url };
  }

  /** `taskQueue` defaults to a fresh one, so tests sharing the dev server never steal each other's work. */
  static async start(handler?: FakeHandler, taskQueue = uniqueId('agent-test')): Promise<Harness> {
    quietRuntime();
    const fake = await FakeAnthropicServer.start(handler);
    const connection = await Connection.connect({ address: temporalAddress() });
    const contentDir = scratchDir('content');
    // AGENT_TEST_STORE=postgres://…: the same tests on the PostgreSQL store (.ci/run does both).
    const setting: StoreSetting = process.env.AGENT_TEST_STORE
      ? storeSetting({ AGENT_STORE: process.env.AGENT_TEST_STORE })
      : { kind: 'file', directory: contentDir };
    const store = await openStore(setting);
    const client = new Client({ connection, dataConverter: { externalStorage: contentExternalStorage(store) } });
    return new Harness(fake, client, connection, taskQueue, contentDir, store);
  }

  workerConfig(): WorkerConfig {
    return {
      address: temporalAddress(),
      namespace: 'default',
      taskQueue: this.taskQueue,
      store: this.store.setting,
      defaultModel: 'claude-sonnet-5-5',
      smallModel: 'claude-haiku-5-5',
      anthropic: { apiKey: 'test-key', baseURL: this.fake.url },
      // As users run it: bubblewrap when it works here (AGENT_SANDBOX chooses otherwise).
      sandbox: sandboxSettings(process.env),
      workspaceRoots: [],
      trustRepoHooks: false,
      // Not the user's ~/.durable-agent/git: repo sessions' git directories stay in the test scratch space.
      gitRoot: join(TEST_TMP, 'git-dirs'),
    };
  }

  /** A worker in this process (fast; cannot be SIGKILLed). */
  async startWorker(
    overrides: Partial<WorkerConfig> = {},
    options: Pick<CreateWorkerOptions, 'interceptors' | 'tracing'> = {},
  ): Promise<AgentWorker> {
    const connection = await NativeConnection.connect({ address: temporalAddress() });
    const worker = await createWorker(
      { ...this.workerConfig(), ...overrides },
      {
        connection,
        workflowBundle: { codePath: process.env.AGENT_WORKFLOW_BUNDLE! },
        ...options,
      },
    );
    const running = worker.run().finally(() => connection.close());
    this.workers.push({ worker, running });
    return worker;
  }

  /**
   * `npm run worker` as its own process, exactly as users run it, so a test can SIGKILL it.
   * `nodeArguments` go before the script (`--cpu-prof`, which NODE_OPTIONS may not carry).
   */
  spawnWorker(extraEnvironment: NodeJS.ProcessEnv = {}, nodeArguments: string[] = []): ChildProcess {
    const config = this.workerConfig();
    // `npm run worker`'s own command, without npm: one process, which a SIGKILL ends (npm would
    // leave the worker running under it). The global setup has built dist/, so it runs compiled.
    const child = spawn(process.execPath, [...nodeArguments, join(PROJECT_ROOT, 'bin', 'worker.js')], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: config.address,
        AGENT_TASK_QUEUE: config.taskQueue,
        ...this.storeEnvironment(),
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: this.fake.url,
        AGENT_LOG_LEVEL: 'ERROR',
        ...extraEnvironment,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[worker ${child.pid}] ${chunk.toString()}`));
    this.processes.push(child);
    return child;
  }

  /** `npm run worker` as its own process, resolved once it polls the task queue. */
  async startWorkerProcess(extraEnvironment: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
    const child = this.spawnWorker(extraEnvironment);
    await waitForLine(child, /durable-agent worker: task queue/);
    return child;
  }

  /** `durable-agent <args>` as its own process, against this harness's server, queue and store. */
  cli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
    return promisify(execFile)(process.execPath, [join(PROJECT_ROOT, 'bin', 'durable-agent.js'), ...args], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporalAddress(),
        AGENT_TASK_QUEUE: this.taskQueue,
        ...this.storeEnvironment(),
        ANTHROPIC_API_KEY: 'test-key',
      },
      timeout: 120_000,
    }).then(
      (output) => ({ ...output, code: 0 }),
      (error: { stdout: string; stderr: string; code: number }) => ({
        stdout: error.stdout,
        stderr: error.stderr,
        code: error.code,
      }),
    );
  }

  async start(
    input: AgentInput | Record<string, unknown>,
    workflowId = uniqueId('agent'),
  ): Promise<WorkflowHandleWithFirstExecutionRunId> {
    return this.client.workflow.start('agentWorkflow', { taskQueue: this.taskQueue, workflowId, args: [input] });
  }

  async run(input: AgentInput | Record<string, unknown>): Promise<AgentResult> {
    const handle = await this.start(input);
    return (await handle.result()) as AgentResult;
  }

  async stop(): Promise<void> {
    for (const child of this.processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const { worker } of this.workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.allSettled(this.workers.map(({ running }) => running));
    await this.fake.close();
    await this.connection.close();
    await this.store.close();
  }
}

/**
 * One harness with an in-process worker for a whole test file: started before its first test,
 * stopped after its last. The returned object forwards to that harness.
 */
export function fileHarness(): Harness {
  let current: Harness | undefined;
  beforeAll(async () => {
    current = await Harness.start();
    await current.startWorker();
  });
  afterAll(async () => {
    await current?.stop();
  });
  return new Proxy({} as Harness, {
    get(_target, key) {
      if (!current) throw new Error('fileHarness() is used before its beforeAll ran');
      const value = Reflect.get(current, key, current) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
}
