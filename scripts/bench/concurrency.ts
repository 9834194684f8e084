/** Many sessions in flight on one worker process (`npm run worker`): throughput and peak memory. */
import { reply, text, toolUse, type RecordedRequest } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { peakRss, round, type Row, waitForWorker } from './support';

const TURNS = 10;

export async function concurrency(harness: Harness, sessions = 1000): Promise<Row[]> {
  const worker = harness.spawnWorker();
  await waitForWorker(worker);
  const memory = peakRss(worker.pid!);
  const perSession = new Map<string, number>();
  harness.fake.handler = (request: RecordedRequest) => {
    const key = JSON.stringify(request.body.system).slice(-120);
    const count = (perSession.get(key) ?? 0) + 1;
    perSession.set(key, count);
    return count < TURNS ? reply([toolUse('Read', { file_path: 'a.txt' })]) : reply([text('done')]);
  };
  const started = performance.now();
  const handles = [];
  for (let index = 0; index < sessions; index++) {
    handles.push(await harness.start({ prompt: 'read', workdir: makeRepo({ 'a.txt': 'a\n' }), toolSummaries: false }));
  }
  const results = await Promise.all(handles.map((handle) => handle.result().then((result) => (result as { reason: string }).reason)));
  const seconds = (performance.now() - started) / 1000;
  const peak = memory.stop();
  worker.kill('SIGTERM');
  const completed = results.filter((reason) => reason === 'completed').length;
  // Retried calls (a heartbeat missed under load) in a sample of the sessions' histories.
  let retried = 0;
  for (const handle of handles.slice(0, 50)) {
    const events = (await handle.fetchHistory()).events ?? [];
    retried += events.filter((event) => (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1).length;
  }
  return [
    {
      figure: `${sessions} concurrent sessions on one worker process (${TURNS} turns each, model call + one Read)`,
      value:
        `${completed} of ${sessions} completed; ${round((sessions * TURNS) / seconds)} turns/s (${round(seconds)} s for ${sessions * TURNS} turns); ` +
        `worker peak RSS ${Math.round(peak / 1024 / 1024)} MB; ${retried} activity retries in ${Math.min(50, sessions)} sampled sessions`,
      command: 'npm run bench -- --only concurrency',
    },
  ];
}
