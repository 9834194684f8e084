/** Temporal's floor on the benchmarks' server: the bare workflow of floor-workflow.ts, in this process. */
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { type Harness, temporalAddress, uniqueId } from '../../test/support/harness';
import { eventTime } from './support';

export interface FloorRun {
  msPerTurn: number;
  /** When each turn's first activity was scheduled (ms, from history), so parts of a run can be timed. */
  turnStarts: number[];
}

export interface FloorRunner {
  run(turns: number): Promise<FloorRun>;
  /** Starts `sessions` workflows of `turns` turns at once (as the concurrency figure does): turns a second. */
  runMany(sessions: number, turns: number, startBatch: number): Promise<number>;
  stop(): Promise<void>;
}

/** A worker for the floor workflow on its own task queue; `run` times a workflow of `turns` turns. */
export async function floorRunner(harness: Harness): Promise<FloorRunner> {
  const taskQueue = uniqueId('bench-floor');
  const connection = await NativeConnection.connect({ address: temporalAddress() });
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./floor-workflow'), logger: quiet });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { code },
    activities: { callNothing: async () => undefined, runNothing: async () => undefined },
  });
  const running = worker.run();
  return {
    async run(turns) {
      const started = performance.now();
      const handle = await harness.client.workflow.start('floorWorkflow', {
        taskQueue,
        workflowId: uniqueId('floor'),
        args: [turns],
      });
      await handle.result();
      const msPerTurn = (performance.now() - started) / turns;
      const events = (await handle.fetchHistory()).events ?? [];
      const turnStarts = events
        .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callNothing')
        .map(eventTime);
      return { msPerTurn, turnStarts };
    },
    async runMany(sessions, turns, startBatch) {
      const started = performance.now();
      const handles = [];
      for (let first = 0; first < sessions; first += startBatch) {
        const count = Math.min(startBatch, sessions - first);
        const start = () =>
          harness.client.workflow.start('floorWorkflow', { taskQueue, workflowId: uniqueId('floor'), args: [turns] });
        handles.push(...(await Promise.all(Array.from({ length: count }, start))));
      }
      await Promise.all(handles.map((handle) => handle.result()));
      return (sessions * turns) / ((performance.now() - started) / 1000);
    },
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

const quiet = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message: string) => console.error(message),
};
