/**
 * How long `status`, `watch`, `list` and `diff` take on a finished session once every worker is
 * stopped: the whole command, process start included (each a fresh `node` running the build in dist/), medians.
 */
import { buildState } from '../../bin/entry';
import { CliProcess } from '../../test/support/cli-process';
import { byTurn, reply, text, toolUse } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { median, round, type Row } from './support';

const REPETITIONS = 3;
const COMMANDS = [['status'], ['watch'], ['diff', '--stat'], ['list']] as const;

export async function noWorker(harness: Harness): Promise<Row[]> {
  // The figure is the compiled CLI's: a stale build would have the launcher run the sources through tsx.
  const build = buildState();
  if (!build.fresh) throw new Error(`${build.reason}: npm run build first`);
  const worker = await harness.startWorker();
  harness.fake.handler = byTurn([reply([toolUse('Write', { file_path: 'a.txt', content: 'a\n' })]), reply([text('Wrote a.txt.')])]);
  const handle = await harness.start({ prompt: 'write a.txt', workdir: makeRepo({}), toolSummaries: false });
  await handle.result();
  worker.shutdown();
  while (worker.getState() !== 'STOPPED') await new Promise((resolve) => setTimeout(resolve, 50));
  const environment = { ...process.env, AGENT_TASK_QUEUE: harness.taskQueue, ...harness.storeEnvironment() };
  const timings = new Map<string, number[]>(COMMANDS.map(([command]) => [command, []]));
  for (let repetition = 0; repetition < REPETITIONS; repetition++) {
    for (const [command, ...options] of COMMANDS) {
      const started = Date.now();
      const run = new CliProcess(command === 'list' ? [command, ...options] : [command, handle.workflowId, ...options], environment);
      if ((await run.exited) !== 0) throw new Error(`durable-agent ${command} failed: ${run.stderr.map((line) => line.text).join('\n')}`);
      timings.get(command)!.push(Date.now() - started);
    }
  }
  const figures = [...timings].map(([command, values]) => `${command} ${round(median(values) / 1000, 2)} s`).join(', ');
  return [
    {
      figure: 'A finished session with every worker stopped: each command from process start to exit (a fresh node, the compiled CLI, each time)',
      value: `${figures} (medians of ${REPETITIONS}; none waits on a query: the result, the stored transcript and snapshots, DescribeTaskQueue)`,
      command: 'npm run bench -- --only noworker',
    },
  ];
}
