/** Eight concurrency-safe calls as one parallel batch, against the same calls one after another. */
import { reply, text, toolUse } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { type History, median, round, type Row, toolActivityEvents } from './support';

/** 2. Eight concurrency-safe calls as one parallel batch against the same calls one after another. */
export async function batch(harness: Harness): Promise<Row[]> {
  const files: Record<string, string> = {};
  for (let index = 0; index < 1500; index++)
    files[`src/module-${index}.ts`] = `export const value${index} = ${index};\n// filler line\n`.repeat(20);
  const workdir = makeRepo(files);
  const calls = Array.from({ length: 8 }, (_, index) => ({ pattern: `value${index}\\d*`, output_mode: 'count' }));
  const parallel: number[] = [];
  const sequential: number[] = [];
  for (let repetition = 0; repetition < 3; repetition++) {
    let requests = 0;
    harness.fake.handler = () =>
      ++requests === 1 ? reply(calls.map((input) => toolUse('Grep', input))) : reply([text('done')]);
    const parallelRun = await harness.start({ prompt: 'grep', workdir, toolSummaries: false });
    await parallelRun.result();
    parallel.push(batchSpan(await parallelRun.fetchHistory()));

    let step = 0;
    harness.fake.handler = () =>
      step < calls.length ? reply([toolUse('Grep', calls[step++]!)]) : reply([text('done')]);
    const sequentialRun = await harness.start({ prompt: 'grep', workdir, toolSummaries: false });
    await sequentialRun.result();
    sequential.push(toolTime(await sequentialRun.fetchHistory()));
  }
  return [
    {
      figure:
        'Wall time of 8 concurrency-safe Grep calls (1,500-file repository): one parallel batch vs one after another',
      value: `${Math.round(median(parallel))} ms vs ${Math.round(median(sequential))} ms: ×${round(median(sequential) / median(parallel))} faster in parallel (2 cores); medians of 3`,
      command: 'npm run bench -- --only batch',
    },
  ];
}

/** From the first runTool scheduled to the last one completed. */
function batchSpan(history: History): number {
  const toolEvents = toolActivityEvents(history);
  return Math.max(...toolEvents.completed) - Math.min(...toolEvents.scheduled);
}

/** The sum of each runTool's scheduled-to-completed time. */
function toolTime(history: History): number {
  const toolEvents = toolActivityEvents(history);
  return toolEvents.completed.reduce((sum, completed, index) => sum + completed - toolEvents.scheduled[index]!, 0);
}
