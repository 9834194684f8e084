/**
 * From a worker's SIGKILL (during a tool call) to the resumed session's next model request, with
 * a new worker started at once, as users start it (`npm run worker`, its workflow bundle cached).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { reply, text, toolUse } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { median, round, type Row, waitForWorker } from './support';

export async function resume(harness: Harness): Promise<Row[]> {
  const samples: number[] = [];
  // No prebuilt bundle from the benchmark: the workers load the cache `npm run worker` uses.
  const asUsers = { AGENT_WORKFLOW_BUNDLE: '' };
  for (let repetition = 0; repetition < 3; repetition++) {
    // Inside the workdir: a sandboxed command can write nowhere else.
    const workdir = makeRepo({});
    const marker = join(workdir, '.running');
    let requests = 0;
    let killedAt = 0;
    let resumedAt = 0;
    harness.fake.handler = () => {
      requests++;
      // The retry after the kill finds the marker and returns at once: only recovery is measured.
      if (requests === 1)
        return reply([
          toolUse('Bash', { command: `if [ -e ${marker} ]; then echo resumed; else touch ${marker}; sleep 30; fi` }),
        ]);
      if (killedAt && !resumedAt) resumedAt = performance.now();
      return reply([text('done')]);
    };
    const first = harness.spawnWorker(asUsers);
    await waitForWorker(first);
    const handle = await harness.start({ prompt: 'run', workdir, toolSummaries: false });
    while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 20));
    first.kill('SIGKILL');
    killedAt = performance.now();
    const second = harness.spawnWorker(asUsers);
    await waitForWorker(second);
    await handle.result();
    if (resumedAt) samples.push((resumedAt - killedAt) / 1000);
    second.kill('SIGTERM');
  }
  return [
    {
      figure:
        "Resume: seconds from a worker SIGKILL (during a tool call) to the resumed session's next model request, a new worker (`npm run worker`) started at once",
      value: `${round(median(samples), 2)} s (median of ${samples.length}: ${samples.map((sample) => round(sample, 2)).join(', ')})`,
      command: 'npm run bench -- --only resume',
    },
  ];
}
