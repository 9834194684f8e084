/**
 * A turn as users run it (model call + one Read), at 30, 100 and 300 turns: the worker in its own
 * process (`npm run worker`, compiled, default configuration and logging, the workflow bundle it
 * caches), the file store on disk, and the fake API in another process (fake-process.ts). Beside
 * it, in the same run, Temporal's floor and today's in-process worker (the `overhead` figure's).
 * Turns are timed where the API sees them: from one model request to the next.
 *
 * To see where the worker's time goes: AGENT_BENCH_CPU_PROF=<dir> runs it under `node --cpu-prof`
 * (a .cpuprofile written there when it stops), AGENT_BENCH_TURN_LENGTHS=100 measures one length,
 * AGENT_BENCH_TURN_REPEATS=1 runs each once (3 by default).
 * AGENT_BENCH_AGAINST=<checkout> runs that checkout's worker too (built, its own node_modules),
 * on a queue of its own, each session beside this tree's: before and after in one run.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Harness, makeRepo, temporalAddress, uniqueId } from '../../test/support/harness';
import { PROJECT_ROOT } from '../../test/support/paths';
import { floorRunner, type FloorRun } from './floor';
import { median, readEveryTurn, round, type Row, waitForWorker } from './support';
import { turnBreakdown } from './turn-breakdown';

const LENGTHS = (process.env.AGENT_BENCH_TURN_LENGTHS ?? '30,100,300').split(',').map(Number);
/** Runs of each length (AGENT_BENCH_TURN_REPEATS): the figure is the one of median ratio. */
const REPEATS = Math.max(1, Number(process.env.AGENT_BENCH_TURN_REPEATS ?? 3));
/** Turns 1–50 against turns 250–300 of the longest session: does a turn cost more as the session grows? */
const EARLY = [0, 50] as const;
const LATE = [250, 300] as const;

/** A spawned worker: this tree's, or (AGENT_BENCH_AGAINST) another checkout's. */
interface SpawnedWorker {
  label: string;
  taskQueue: string;
  child: ChildProcess;
}

export async function turns(harness: Harness): Promise<Row[]> {
  buildIfStale();
  const fake = await FakeProcess.start();
  const floor = await floorRunner(harness);
  const profile = process.env.AGENT_BENCH_CPU_PROF;
  const environment = { ANTHROPIC_BASE_URL: fake.url, AGENT_WORKFLOW_BUNDLE: '', AGENT_LOG_LEVEL: 'INFO' };
  const workers: SpawnedWorker[] = [
    {
      label: 'this tree',
      taskQueue: harness.taskQueue,
      child: harness.spawnWorker(environment, profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
    },
  ];
  const against = process.env.AGENT_BENCH_AGAINST;
  if (against) workers.push(spawnFrom(harness, against, environment));
  const rows: Row[] = [];
  try {
    for (const worker of workers) {
      worker.child.stdout!.resume();
      await waitForWorker(worker.child);
      await asUsers(harness, fake, 3, worker.taskQueue); // warm-up: the worker's first workflow task loads the bundle
    }
    for (const length of LENGTHS) {
      rows.push(await compare(harness, fake, floor, length, workers));
      console.log(`${rows[rows.length - 1]!.value}`);
    }
  } finally {
    await Promise.all(workers.map(({ child }) => stopProcess(child)));
    await floor.stop();
    fake.stop();
  }
  return rows;
}

/**
 * The floor and each spawned worker's session at once: the machine's load, which drifts over
 * minutes when it is shared, is then the same for all of them. Ratios are of median turns; one
 * pair of sessions varies by ±20% on this machine, so the pair runs REPEATS times and the figure
 * is the run of median ratio (every ratio listed).
 */
async function compare(
  harness: Harness,
  fake: FakeProcess,
  floor: Awaited<ReturnType<typeof floorRunner>>,
  length: number,
  workers: SpawnedWorker[],
): Promise<Row> {
  const pairs: { floorRun: FloorRun; runs: SessionRun[]; ratio: number }[] = [];
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    const [floorRun, ...runs] = await Promise.all([
      floor.run(length),
      ...workers.map((worker) => asUsers(harness, fake, length, worker.taskQueue)),
    ]);
    const ratio = (runs[0] as SessionRun).medianTurn / median(intervals((floorRun as FloorRun).turnStarts));
    pairs.push({ floorRun: floorRun as FloorRun, runs: runs as SessionRun[], ratio });
  }
  const ratios = pairs.map((pair) => pair.ratio).sort((a, b) => a - b);
  const { floorRun, runs } = pairs.find((pair) => pair.ratio === ratios[Math.floor(ratios.length / 2)])!;
  const [users, ...others] = runs;
  const inProcess = await inProcessWorker(harness, length);
  const floorTurn = median(intervals(floorRun.turnStarts));
  const ratio = (ms: number) => `×${round(ms / floorTurn, 2)}`;
  const growthOf = (run: SessionRun) =>
    length >= LATE[1] ? `; turns 1–50 ${run.early} ms, 250–300 ${run.late} ms (${percent(run.late, run.early)})` : '';
  const floorStarts = floorRun.turnStarts;
  const growth =
    length >= LATE[1] ? `${growthOf(users!)}, floor ${span(floorStarts, EARLY)} and ${span(floorStarts, LATE)} ms` : '';
  const beside = others
    .map(
      (run, index) =>
        `; ${workers[index + 1]!.label}: ${run.medianTurn} ms (${ratio(run.medianTurn)})${growthOf(run)}${run.breakdown ? `, per turn: ${run.breakdown}` : ''}`,
    )
    .join('');
  const every =
    REPEATS > 1
      ? `, median of ${REPEATS} runs side by side: ${pairs.map((pair) => `×${round(pair.ratio, 2)}`).join(', ')}`
      : '';
  return {
    figure: `Turn as users run it (model call + one Read; \`npm run worker\` in its own process, file store, fake API in another process), a ${length}-turn session against Temporal's floor run at the same time, and the in-process worker after`,
    value:
      `${users!.medianTurn} ms median turn (${ratio(users!.medianTurn)} the floor${every}; mean ${round(users!.msPerTurn)} ms); floor ${round(floorTurn)} ms (mean ${round(floorRun.msPerTurn)})${growth}; ` +
      `in-process worker and fake, alone, ${round(inProcess)} ms mean${users!.breakdown ? `; per turn: ${users!.breakdown}` : ''}${beside}`,
    command: 'npm run bench -- --only turns',
  };
}

interface SessionRun {
  msPerTurn: number;
  medianTurn: number;
  early: number;
  late: number;
  breakdown: string;
}

/** One session on a spawned worker's queue; its turns timed from the fake's request log. */
async function asUsers(harness: Harness, fake: FakeProcess, length: number, taskQueue: string): Promise<SessionRun> {
  const session = uniqueId('s');
  const started = performance.now();
  const input = { prompt: `read, turns ${length} session ${session}`, workdir: makeRepo({ 'a.txt': 'a\n' }) };
  const handle = await harness.client.workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: uniqueId('agent'),
    args: [input],
  });
  await handle.result();
  const msPerTurn = (performance.now() - started) / length;
  // The n-th request is turn n's (no retries against this fake); a session that sent fewer says so.
  const starts = fake.requests.filter((request) => request.session === session).map((request) => request.at);
  if (starts.length !== length) throw new Error(`a ${length}-turn session made ${starts.length} model requests`);
  // The 300-turn session continues as new on the way: its history's first run is not all of it.
  const breakdown = length === 100 ? turnBreakdown(await handle.fetchHistory(), length) : '';
  const early = span(starts, [EARLY[0], Math.min(EARLY[1], length)]);
  return {
    msPerTurn,
    medianTurn: round(median(intervals(starts))),
    early,
    late: length >= LATE[1] ? span(starts, LATE) : Number.NaN,
    breakdown,
  };
}

/** The same session on today's in-process worker (the `overhead` figure), summaries on, on a queue of its own. */
async function inProcessWorker(harness: Harness, length: number): Promise<number> {
  const taskQueue = uniqueId('bench-in-process');
  const worker = await harness.startWorker({ taskQueue });
  try {
    harness.fake.handler = readEveryTurn(length);
    const input = { prompt: 'read', workdir: makeRepo({ 'a.txt': 'a\n' }), toolSummaries: true };
    const started = performance.now();
    await (
      await harness.client.workflow.start('agentWorkflow', { taskQueue, workflowId: uniqueId('agent'), args: [input] })
    ).result();
    return (performance.now() - started) / length;
  } finally {
    worker.shutdown();
  }
}

/** `npm run worker` of another checkout (AGENT_BENCH_AGAINST), with this harness's server, store and fake. */
function spawnFrom(harness: Harness, root: string, environment: NodeJS.ProcessEnv): SpawnedWorker {
  const taskQueue = uniqueId('bench-against');
  const child = spawn(process.execPath, [join(root, 'bin', 'worker.js')], {
    cwd: root,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress(),
      AGENT_TASK_QUEUE: taskQueue,
      ...harness.storeEnvironment(),
      ANTHROPIC_API_KEY: 'test-key',
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  return { label: `before (${commit || root})`, taskQueue, child };
}

/** SIGTERM, resolved once it exited (a profiled worker writes its profile then). */
function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

/** Mean turn over turns `from`–`to` (by when each started). */
const span = (starts: number[], [from, to]: readonly [number, number]) =>
  round((starts[to - 1]! - starts[from]!) / (to - 1 - from));
const intervals = (starts: number[]) => starts.slice(1).map((at, index) => at - starts[index]!);
const percent = (late: number, early: number) => `${late >= early ? '+' : ''}${round((late / early - 1) * 100)}%`;

/** The spawned worker runs dist/ only when it is a build of the sources as they are (bin/entry.js). */
export function buildIfStale(): void {
  const { buildState } = require(join(PROJECT_ROOT, 'bin', 'entry.js')) as { buildState(): { fresh: boolean } };
  if (buildState().fresh) return;
  const built = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build.js')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build failed');
}

/** fake-process.ts as a child process: its URL and the main-model requests it logged. */
class FakeProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly requests: { session: string; turn: number; at: number }[],
  ) {}

  static async start(): Promise<FakeProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fake-process.ts')], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    const requests: FakeProcess['requests'] = [];
    const url = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`fake API process exited (${code})`)));
      lines.on('line', (line) => {
        const [kind, first, second, third] = line.split(' ');
        if (kind === 'url') resolve(first!);
        if (kind === 'request') requests.push({ session: first!, turn: Number(second), at: Number(third) });
      });
    });
    return new FakeProcess(child, url, requests);
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}
