/**
 * Issue 26: refused requests per limit window. Sessions on one API key and model work through 6
 * model calls each; mid-way the fake refuses every request for a 10 s window (429, `retry-after:
 * 2`, the exhausted limit's reset at the window's end). Counted: the requests it refused, and
 * how long the sessions took. 1 session; 10 sessions on one worker process (its limiter shares
 * the reset); 10 sessions across 10 workers whose limiters share nothing (each its own API key
 * hash, as 10 worker processes would be). The window is 10 s rather than 75 s to keep the run short.
 */
import { byTurn, RateLimitWindow, reply, text, toolUse } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { round, type Row } from './support';

const WINDOW_MS = 10_000;
const READS = 5;

const handler = byTurn([
  ...Array.from({ length: READS }, () => reply([toolUse('Read', { file_path: 'notes.txt' })])),
  reply([text('Read the notes.')]),
]);

async function measure(harness: Harness, sessions: number): Promise<{ refused: number; seconds: number }> {
  harness.fake.handler = handler;
  // The window opens once about half the calls were answered.
  const window = new RateLimitWindow({ durationMs: WINDOW_MS, startAfter: Math.ceil((sessions * (READS + 1)) / 2) });
  harness.fake.rateLimit = window;
  const started = performance.now();
  const handles = await Promise.all(
    Array.from({ length: sessions }, () =>
      harness.start({ prompt: 'Read notes.txt', workdir: makeRepo({ 'notes.txt': 'hello\n' }), toolSummaries: false }),
    ),
  );
  const results = (await Promise.all(handles.map((handle) => handle.result()))) as { reason: string }[];
  const seconds = (performance.now() - started) / 1000;
  const completed = results.filter((result) => result.reason === 'completed').length;
  if (completed !== sessions) throw new Error(`${sessions - completed} of ${sessions} sessions did not complete`);
  harness.fake.rateLimit = undefined;
  return { refused: window.refused, seconds };
}

export async function rateLimit(harness: Harness): Promise<Row[]> {
  const one = await measure(harness, 1);
  const shared = await measure(harness, 10);
  // Nine more workers on the same queue, each with its own key hash: their limiters share nothing.
  for (let index = 0; index < 9; index++)
    await harness.startWorker({ anthropic: { apiKey: `bench-key-${index}`, baseURL: harness.fake.url } });
  const apart = await measure(harness, 10);
  return [
    {
      figure: `Rate limits: requests refused in one ${WINDOW_MS / 1000} s limit window (429, retry-after 2, the exhausted limit's reset at the window's end) opened mid-way through sessions of 6 model calls on one API key and model; every session completes`,
      value:
        `1 session: ${one.refused} refused (${round(one.seconds)} s); 10 sessions on one worker process: ${shared.refused} refused (${round(shared.seconds)} s); ` +
        `10 sessions across 10 workers sharing nothing: ${apart.refused} refused (${round(apart.seconds)} s)`,
      command: 'npm run bench -- --only rate-limit',
    },
  ];
}
