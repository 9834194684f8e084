/**
 * How long `--help`, `status`, `watch`, `list` and `diff` take on finished sessions once every
 * worker is stopped: the whole command, process start included, each a fresh `node` running the
 * compiled CLI as users run it (`bin/durable-agent.js`, the build in dist/, its compile cache
 * written by one unmeasured run of each command first), medians; `status` and `list` also with
 * the compile cache off, interleaved, for the ratio.
 */
import { buildState } from '../../bin/entry';
import { CliProcess } from '../../test/support/cli-process';
import { byTurn, reply, text, toolUse } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { median, round, type Row } from './support';

const REPETITIONS = 5;
const SESSIONS = 3;
/** Label, then arguments (`<id>` is the session's workflow id), then environment. */
const COMMANDS: [string, string[], NodeJS.ProcessEnv][] = [
  ['--help', ['--help'], {}],
  ['status', ['status', '<id>'], {}],
  ['watch', ['watch', '<id>'], {}],
  ['diff', ['diff', '<id>', '--stat'], {}],
  ['list', ['list'], {}],
  ['status (no compile cache)', ['status', '<id>'], { DURABLE_AGENT_COMPILE_CACHE: '0' }],
  ['list (no compile cache)', ['list'], { DURABLE_AGENT_COMPILE_CACHE: '0' }],
];

export async function noWorker(harness: Harness): Promise<Row[]> {
  // The figure is the compiled CLI's: a stale build would have the launcher run the sources through tsx.
  const build = buildState();
  if (!build.fresh) throw new Error(`${build.reason}: npm run build first`);
  const workflowId = await finishedSessions(harness);
  const environment = { ...process.env, AGENT_TASK_QUEUE: harness.taskQueue, ...harness.storeEnvironment() };
  const run = async (args: string[], extra: NodeJS.ProcessEnv) => {
    const started = Date.now();
    const command = new CliProcess(
      args.map((arg) => (arg === '<id>' ? workflowId : arg)),
      { ...environment, ...extra },
    );
    if ((await command.exited) !== 0)
      throw new Error(`durable-agent ${args[0]} failed: ${command.stderr.map((line) => line.text).join('\n')}`);
    return Date.now() - started;
  };
  for (const [, args, extra] of COMMANDS) await run(args, extra);
  const timings = new Map<string, number[]>(COMMANDS.map(([label]) => [label, []]));
  for (let repetition = 0; repetition < REPETITIONS; repetition++) {
    for (const [label, args, extra] of COMMANDS) timings.get(label)!.push(await run(args, extra));
  }
  const figures = [...timings].map(([label, values]) => `${label} ${round(median(values) / 1000, 2)} s`).join(', ');
  return [
    {
      figure: `Finished sessions (${SESSIONS}, listed by \`list\`) with every worker stopped: each command from process start to exit (a fresh node running the compiled CLI, \`bin/durable-agent.js\`, each time)`,
      value: `${figures} (medians of ${REPETITIONS}, interleaved; none waits on a query: the result, the stored transcript and snapshots, DescribeTaskQueue)`,
      command: 'npm run bench -- --only noworker',
    },
  ];
}

/** SESSIONS finished sessions, each writing a file; their workers stopped. Resolves with the last one's id. */
async function finishedSessions(harness: Harness): Promise<string> {
  const worker = await harness.startWorker();
  let workflowId = '';
  for (let session = 0; session < SESSIONS; session++) {
    harness.fake.handler = byTurn([
      reply([toolUse('Write', { file_path: 'a.txt', content: 'a\n' })]),
      reply([text('Wrote a.txt.')]),
    ]);
    const handle = await harness.start({ prompt: 'write a.txt', workdir: makeRepo({}), toolSummaries: false });
    await handle.result();
    workflowId = handle.workflowId;
  }
  worker.shutdown();
  while (worker.getState() !== 'STOPPED') await new Promise((resolve) => setTimeout(resolve, 50));
  return workflowId;
}
