/** What the benchmarks share: a row of BENCHMARKS.md, medians, sessions of reads, workers, history times. */
import { readFileSync } from 'node:fs';
import { reply, text, toolUse, type FakeHandler } from '../../test/support/fake-anthropic';
import type { Harness } from '../../test/support/harness';

export interface Row {
  figure: string;
  value: string;
  command: string;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A session of `turns` turns, each one model call and one Read. */
export function readEveryTurn(turns: number): FakeHandler {
  let requests = 0;
  return () => (++requests <= turns - 1 ? reply([toolUse('Read', { file_path: 'a.txt' })]) : reply([text('done')]));
}

export async function timeSession(
  harness: Harness,
  handler: FakeHandler,
  input: Record<string, unknown>,
): Promise<{ ms: number; historyBytes: number }> {
  harness.fake.handler = handler;
  const started = performance.now();
  const handle = await harness.start({ toolSummaries: false, ...input });
  await handle.result();
  const ms = performance.now() - started;
  return { ms, historyBytes: Number((await handle.describe()).historySize ?? 0) };
}

/** Resolves once a spawned worker (`npm run worker`) polls its task queue. */
export function waitForWorker(worker: ReturnType<Harness['spawnWorker']>): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen: string | undefined = '';
    // The listener stays (it drains the pipe), but keeps nothing once the worker is up.
    worker.stdout!.on('data', (chunk: Buffer) => {
      if (seen === undefined) return;
      seen += chunk.toString();
      if (seen.includes('durable-agent worker: task queue')) {
        seen = undefined;
        resolve();
      }
    });
    worker.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
  });
}

/** Samples a process's peak resident memory (VmHWM, the kernel's own peak); `stop()` gives it in bytes. */
export function peakRss(pid: number): { stop(): number } {
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(
        peak,
        Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) * 1024,
      );
    } catch {
      // not readable here
    }
  };
  const timer = setInterval(sample, 200);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

export type History = Awaited<ReturnType<Awaited<ReturnType<Harness['start']>>['fetchHistory']>>;
export const eventTime = (event: NonNullable<History['events']>[number]) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

/** Scheduled and completed times of each runTool activity of a history. */
export function toolActivityEvents(history: History): { scheduled: number[]; completed: number[] } {
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
