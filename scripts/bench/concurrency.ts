/**
 * Many sessions started at once on one worker process, as users run it (`npm run worker`, its
 * default settings: tool summaries on, logging at INFO): throughput and peak memory.
 */
import { readFileSync } from 'node:fs';
import { reply, text, toolUse, type RecordedRequest } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { floorRunner } from './floor';
import { peakRss, round, type Row, waitForWorker } from './support';

const TURNS = 4;
/** Starts sent together: the client's calls in flight at once (the sessions all run at once anyway). */
const START_BATCH = 50;

/** Turn `n` of a session answers a request holding n − 1 assistant messages; summaries get a label. */
function fourReadsThenDone(request: RecordedRequest) {
  if (JSON.stringify(request.body.system ?? '').includes('You label the steps')) return reply([text('Read a.txt')]);
  const turn = request.body.messages.filter((message) => message.role === 'assistant').length + 1;
  return turn < TURNS ? reply([toolUse('Read', { file_path: 'a.txt' })]) : reply([text('done')]);
}

export async function concurrency(harness: Harness, sessions = 1000): Promise<Row[]> {
  // The worker as users start it: its bundle cache, the shipped log level.
  // AGENT_BENCH_WORKER_NODE_OPTIONS: node's options for the worker alone, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArguments = process.env.AGENT_BENCH_WORKER_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [];
  const worker = harness.spawnWorker({ AGENT_WORKFLOW_BUNDLE: '', AGENT_LOG_LEVEL: 'INFO' }, nodeArguments);
  await waitForWorker(worker);
  const memory = peakRss(worker.pid!);
  harness.fake.handler = fourReadsThenDone;
  const workdirs = Array.from({ length: sessions }, () => makeRepo({ 'a.txt': 'a\n' }));
  const started = performance.now();
  const handles = [];
  for (let first = 0; first < sessions; first += START_BATCH) {
    const batch = workdirs.slice(first, first + START_BATCH);
    handles.push(...(await Promise.all(batch.map((workdir) => harness.start({ prompt: 'read', workdir })))));
  }
  const startSeconds = (performance.now() - started) / 1000;
  // A session that fails is counted, not thrown: the figure says how many completed.
  const ended = (handle: Handle) =>
    handle.result().then(
      (result) => (result as { reason: string }).reason,
      (error: Error) => `failed: ${error.message}`,
    );
  const results = await Promise.all(handles.map(ended));
  const seconds = (performance.now() - started) / 1000;
  const peak = memory.stop();
  const cpuSeconds = processCpuSeconds(worker.pid!);
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGTERM');
  const completed = results.filter((reason) => reason === 'completed').length;
  for (const failure of new Set(results.filter((reason) => reason !== 'completed')))
    console.error(`concurrency: a session ended ${failure}`);
  const sampled = await sampleHistories(handles.slice(0, 50));
  await exited;
  // Temporal's floor at the same load, with the agent's worker gone: a bare workflow of two empty activities a turn.
  const floor = await floorRunner(harness);
  const floorTurnsPerSecond = await floor.runMany(sessions, TURNS, START_BATCH).finally(() => floor.stop());
  const turnsPerSecond = (sessions * TURNS) / seconds;
  return [
    {
      figure: `${sessions} sessions started at once on one worker process (\`npm run worker\`, default settings; ${TURNS} turns each, model call + one Read)`,
      value:
        `${completed} of ${sessions} completed; ${round(turnsPerSecond)} turns/s (${round(seconds)} s for ${sessions * TURNS} turns, all started in ${round(startSeconds)} s), ` +
        `Temporal's floor right after ${round(floorTurnsPerSecond)} turns/s (×${round(floorTurnsPerSecond / turnsPerSecond)} as fast); ` +
        `worker peak RSS ${Math.round(peak / 1024 / 1024)} MB, CPU ${round((cpuSeconds * 1000) / (sessions * TURNS))} ms a turn; in ${sampled.sessions} sampled sessions: ${sampled.retried} activity retries, ` +
        `${sampled.workflowTasks} workflow tasks (${sampled.timedOut} timed out), median schedule-to-start ${sampled.medianQueuedMs} ms`,
      command: `npm run bench -- --only concurrency --sessions ${sessions}`,
    },
  ];
}

/** User plus system CPU time a process has used so far (/proc/<pid>/stat, in clock ticks of 1/100 s). */
function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

type Handle = Awaited<ReturnType<Harness['start']>>;
type HistoryEvent = NonNullable<Awaited<ReturnType<Handle['fetchHistory']>>['events']>[number];
const eventMs = (event: HistoryEvent) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

/** Retried calls (a heartbeat missed under load), workflow tasks, and how long tasks waited for a slot. */
async function sampleHistories(handles: Handle[]) {
  let retried = 0;
  let workflowTasks = 0;
  // A workflow task that waited too long on the worker's sticky queue: it runs again elsewhere, replaying the whole history.
  let timedOut = 0;
  const queued: number[] = [];
  for (const handle of handles) {
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduledAt = new Map<string, number>();
    for (const event of events) {
      if (event.activityTaskScheduledEventAttributes || event.workflowTaskScheduledEventAttributes)
        scheduledAt.set(String(event.eventId), eventMs(event));
      const activity = event.activityTaskStartedEventAttributes;
      const task = event.workflowTaskStartedEventAttributes;
      if (activity && (activity.attempt ?? 1) > 1) retried++;
      if (task) workflowTasks++;
      if (event.workflowTaskTimedOutEventAttributes) timedOut++;
      const scheduled = scheduledAt.get(String(activity?.scheduledEventId ?? task?.scheduledEventId ?? ''));
      if (scheduled !== undefined) queued.push(eventMs(event) - scheduled);
    }
  }
  const sorted = queued.sort((a, b) => a - b);
  return {
    sessions: handles.length,
    retried,
    workflowTasks,
    timedOut,
    medianQueuedMs: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
  };
}
