/**
 * What live output costs and how fast it is: the same session (one 2,000-token reply streamed in
 * 500 deltas, 10 ms apart) with nobody watching and with one `durable-agent watch --json`
 * process, interleaved. History size from the server; delay from the moment the fake API wrote
 * a delta to the moment the watcher's line for it was read (both clocks in this process).
 */
import { CliProcess } from '../../test/support/cli-process';
import type { FakeReply } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { historySize } from '../../test/support/history';
import { median, round, type Row } from './support';

const PIECES = 500;
/** 16 characters a piece: 8,000 characters, which the fake counts as 2,000 output tokens. */
const reply = Array.from({ length: PIECES }, (_, index) =>
  `tok${String(index).padStart(4, '0')} words ~ `.slice(0, 16),
).join('');
const REPETITIONS = 3;

async function session(
  harness: Harness,
  watched: boolean,
): Promise<{ events: number; bytes: number; delays: number[] }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  harness.fake.handler = () => ({
    kind: 'hold',
    release: released.then((): FakeReply => ({
      kind: 'message',
      content: [{ type: 'text', text: reply }],
      deltaIntervalMs: 10,
      pieces: PIECES,
    })),
  });
  const handle = await harness.start({ prompt: 'write at length', workdir: makeRepo({}), toolSummaries: false });
  let watcher: CliProcess | undefined;
  if (watched) {
    watcher = new CliProcess(['watch', handle.workflowId, '--json'], {
      ...process.env,
      AGENT_TASK_QUEUE: harness.taskQueue,
      ...harness.storeEnvironment(),
    });
    await watcher.waitFor('stderr', /^Following .* live/);
  }
  const sentBefore = harness.fake.sentDeltas.length;
  release();
  await handle.result();
  const size = await historySize(handle);
  const delays: number[] = [];
  if (watcher) {
    await watcher.exited;
    const sent = harness.fake.sentDeltas.slice(sentBefore);
    for (const line of watcher.stdout) {
      const event = JSON.parse(line.text) as { type: string; index?: number };
      if (event.type === 'text_delta') delays.push(line.at - sent[event.index!]!.at);
    }
    if (delays.length !== PIECES) throw new Error(`the watcher printed ${delays.length} deltas of ${PIECES}`);
  }
  return { ...size, delays };
}

const percentile = (values: number[], share: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))]!;

export async function liveOutput(harness: Harness): Promise<Row[]> {
  const alone: { events: number; bytes: number }[] = [];
  const watched: { events: number; bytes: number }[] = [];
  const delays: number[] = [];
  for (let repetition = 0; repetition < REPETITIONS; repetition++) {
    alone.push(await session(harness, false));
    const run = await session(harness, true);
    watched.push(run);
    delays.push(...run.delays);
  }
  const describe = (runs: { events: number; bytes: number }[]) =>
    `${median(runs.map((run) => run.events))} events, ${median(runs.map((run) => run.bytes))} bytes`;
  return [
    {
      figure:
        'History of a session with one 2,000-token reply streamed in 500 deltas: nobody watching vs one watcher (live output travels outside history)',
      value: `nobody watching: ${describe(alone)}; one watcher: ${describe(watched)} (medians of ${REPETITIONS}; the difference is what streaming adds to history)`,
      command: 'npm run bench -- --only live',
    },
    {
      figure:
        'Delay from the API writing a text delta to `durable-agent watch --json` printing it (file store, batches of 100 ms)',
      value: `median ${round(median(delays))} ms, p95 ${round(percentile(delays, 0.95))} ms, max ${round(Math.max(...delays))} ms over ${delays.length} deltas (${REPETITIONS} sessions)`,
      command: 'npm run bench -- --only live',
    },
  ];
}
