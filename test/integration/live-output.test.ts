/**
 * Live output as users watch it: `durable-agent watch` and `run` as processes of their own,
 * against a real dev server and worker, with the fake model streaming slowly through the real SDK.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LiveEvent, liveEventSchema } from '../../src/shared/live-events';
import { CliProcess } from '../support/cli-process';
import { apiError, byTurn, type FakeReply, reply, text, toolUse } from '../support/fake-anthropic';
import { fileHarness, makeRepo, temporalAddress, uniqueId } from '../support/harness';
import { scratchDir } from '../support/paths';

jest.setTimeout(120_000);

const harness = fileHarness();
const watchers: CliProcess[] = [];
afterEach(() => {
  for (const watcher of watchers.splice(0)) watcher.kill();
});

function cliEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: temporalAddress(),
    AGENT_TASK_QUEUE: harness.taskQueue,
    ...harness.storeEnvironment(),
    ANTHROPIC_API_KEY: 'test-key',
    ...extra,
  };
}

function cli(args: string[], extra: NodeJS.ProcessEnv = {}): CliProcess {
  const process = new CliProcess(args, cliEnvironment(extra));
  watchers.push(process);
  return process;
}

/** Every stdout line parsed against the exported schema, with when the test read it. */
function eventsOf(watcher: CliProcess): { event: LiveEvent; at: number }[] {
  return watcher.stdout.map((line) => ({ event: liveEventSchema.parse(JSON.parse(line.text)), at: line.at }));
}

const deltasOf = (events: LiveEvent[], attempt: number) =>
  events.filter(
    (event): event is Extract<LiveEvent, { type: 'text_delta' }> =>
      event.type === 'text_delta' && event.attempt === attempt,
  );

test('watch --json prints the reply while the model writes it, and a retried attempt replaces the first one without gaps or repeats', async () => {
  const answer = Array.from({ length: 30 }, (_, index) => `w${String(index).padStart(2, '0')} `).join('');
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let requests = 0;
  harness.fake.handler = async (): Promise<FakeReply> => {
    if (++requests === 1) {
      await released;
      return {
        kind: 'stream_error',
        type: 'overloaded_error',
        message: 'Overloaded',
        partial: 'A first try, cut off',
        deltaIntervalMs: 50,
        pieces: 4,
      };
    }
    return { kind: 'message', content: [text(answer)], deltaIntervalMs: 50, pieces: 30 };
  };
  const handle = await harness.start({ prompt: 'explain the project', workdir: makeRepo({}), toolSummaries: false });
  const json = cli(['watch', handle.workflowId, '--json']);
  const human = cli(['watch', handle.workflowId]);
  await json.waitFor('stderr', /^Following .* live/);
  await human.waitFor('stdout', /^Following .* live/);
  await harness.fake.waitForRequests(1);
  release();
  expect(await json.exited).toBe(0);
  expect(await human.exited).toBe(0);

  const timed = eventsOf(json);
  const events = timed.map(({ event }) => event);
  const first = deltasOf(events, 1);
  const second = deltasOf(events, 2);
  expect(first.map((event) => event.index)).toEqual([0, 1, 2, 3]);
  expect(first.map((event) => event.text).join('')).toBe('A first try, cut off');
  const retry = events.findIndex((event) => event.type === 'retry');
  expect(events[retry]).toMatchObject({
    type: 'retry',
    turn: 1,
    attempt: 1,
    nextAttempt: 2,
    reason: 'ModelOverloaded',
    delayMs: 2000,
    replaced: true,
  });
  // Attempt 1's pieces, then the retry that voids them, then attempt 2's: in order, each once.
  expect(events.lastIndexOf(first.at(-1)!)).toBeLessThan(retry);
  expect(events.indexOf(second[0]!)).toBeGreaterThan(retry);
  expect(second.map((event) => event.index)).toEqual(Array.from({ length: 30 }, (_, index) => index));
  expect(second.map((event) => event.text).join('')).toBe(answer);
  expect(events.filter((event) => event.type === 'turn_start')).toEqual([
    expect.objectContaining({ turn: 1, workflowId: handle.workflowId }),
  ]);
  const usage = events.findIndex((event) => event.type === 'usage');
  expect(usage).toBeGreaterThan(events.indexOf(second.at(-1)!));
  expect(events[usage]).toMatchObject({ turn: 1, text: answer, stopReason: 'end_turn' });
  expect(events.at(-1)).toMatchObject({ type: 'result', reason: 'completed', finalText: answer });
  // Streamed, not printed at the end: the first piece was out before the fake sent its last.
  const firstShown = timed.find(({ event }) => event === second[0])!.at;
  expect(firstShown).toBeLessThan(harness.fake.sentDeltas.at(-1)!.at);

  const lines = human.stdout.map((line) => line.text);
  expect(lines.filter((line) => line.includes('↻'))).toEqual([
    '  ↻ model overloaded: retry 2 in 2 s (its partial reply is replaced)',
  ]);
  expect(lines).toContain('── turn 1 (attempt 2)');
  expect(lines).toContain(`  ${answer}`);
});

test('watch attached after turn 3 prints turns 1 to 3, then follows turn 4 live', async () => {
  const workdir = makeRepo({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n' });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const last = 'All three files are read.';
  harness.fake.handler = byTurn([
    reply([toolUse('Read', { file_path: 'a.txt' })]),
    reply([toolUse('Read', { file_path: 'b.txt' })]),
    reply([toolUse('Read', { file_path: 'c.txt' })]),
    {
      kind: 'hold',
      release: released.then((): FakeReply => ({
        kind: 'message',
        content: [text(last)],
        deltaIntervalMs: 50,
        pieces: 5,
      })),
    },
  ]);
  const handle = await harness.start({ prompt: 'read the files', workdir, toolSummaries: false });
  await harness.fake.waitForRequests(4);
  const watcher = cli(['watch', handle.workflowId, '--json']);
  await watcher.waitFor('stdout', /"type":"tool_end".*"turn":3/);
  release();
  expect(await watcher.exited).toBe(0);

  const events = eventsOf(watcher).map(({ event }) => event);
  expect(events.filter((event) => event.type === 'turn_start').map((event) => event.turn)).toEqual([1, 2, 3, 4]);
  expect(
    events.filter((event) => event.type === 'tool_end').map((event) => [event.turn, event.name, event.isError]),
  ).toEqual([
    [1, 'Read', false],
    [2, 'Read', false],
    [3, 'Read', false],
  ]);
  const live = deltasOf(events, 1).filter((event) => event.turn === 4);
  expect(live.map((event) => event.text).join('')).toBe(last);
  expect(events.indexOf(live[0]!)).toBeGreaterThan(events.map((event) => event.type).lastIndexOf('tool_end'));
  expect(events.at(-1)).toMatchObject({ type: 'result', reason: 'completed', turn: 4 });
});

test('run against a model that is overloaded once prints one retry line and no stack trace; the worker log has the details', async () => {
  const logs = scratchDir('cli-logs');
  let requests = 0;
  harness.fake.handler = () =>
    ++requests === 1 ? apiError(529, 'overloaded_error', 'Overloaded') : reply([text('Done after one retry.')]);
  const run = cli(['run', '--workdir', makeRepo({}), '--workflow-id', uniqueId('quiet'), 'say something'], {
    AGENT_TASK_QUEUE: uniqueId('quiet-queue'),
    ANTHROPIC_BASE_URL: harness.fake.url,
    AGENT_LOG_DIR: logs,
  });
  expect(await run.exited).toBe(0);
  const output = [...run.stdout, ...run.stderr].map((line) => line.text);
  expect(output.filter((line) => line.includes('↻'))).toEqual(['  ↻ model overloaded: retry 2 in 2 s']);
  expect(output.filter((line) => /^\s+at |\[WARN\]|Activity failed|taskToken/.test(line))).toEqual([]);
  expect(output).toContain('  Done after one retry.');
  const files = existsSync(logs) ? readdirSync(logs) : [];
  expect(files).toHaveLength(1);
  expect(readFileSync(join(logs, files[0]!), 'utf8')).toMatch(/\[WARN\] Activity failed.*ModelOverloaded/s);
});

test('watch follows a session through continue-as-new, with the progress of a long command and its last line', async () => {
  const workdir = makeRepo({ 'a.txt': 'alpha\n' });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  harness.fake.handler = byTurn([
    // Held until the watcher listens: progress is live only, and the command's first second must be seen.
    {
      kind: 'hold',
      release: released.then(() =>
        reply([toolUse('Bash', { command: 'echo compiling; sleep 1.5; echo linking; sleep 2' })]),
      ),
    },
    reply([toolUse('Read', { file_path: 'a.txt' })]),
    reply([toolUse('Read', { file_path: 'a.txt' })]),
    // Slow enough that its first pieces are out while it still streams.
    { kind: 'message', content: [text('Built and read.')], deltaIntervalMs: 200, pieces: 4 },
  ]);
  const handle = await harness.start({ prompt: 'build', workdir, toolSummaries: false, continueAsNewAfterTurns: 2 });
  const watcher = cli(['watch', handle.workflowId, '--json']);
  await watcher.waitFor('stderr', /^Following .* live/);
  release();
  expect(await watcher.exited).toBe(0);
  expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);

  const events = eventsOf(watcher).map(({ event }) => event);
  expect(events.filter((event) => event.type === 'turn_start').map((event) => event.turn)).toEqual([1, 2, 3, 4]);
  expect(events.filter((event) => event.type === 'tool_end').map((event) => `${event.turn} ${event.name}`)).toEqual([
    '1 Bash',
    '2 Read',
    '3 Read',
  ]);
  const progress = events.filter(
    (event): event is Extract<LiveEvent, { type: 'tool_progress' }> => event.type === 'tool_progress',
  );
  expect(progress.length).toBeGreaterThanOrEqual(2);
  expect(progress.every((event) => event.turn === 1 && event.name === 'Bash' && event.elapsedMs >= 900)).toBe(true);
  // Ticks a second apart (timers may fire a millisecond early by the wall clock), in order.
  expect(progress.map((event) => event.elapsedMs)).toEqual(
    [...progress.map((event) => event.elapsedMs)].sort((a, b) => a - b),
  );
  expect(progress.map((event) => event.lastLine)).toEqual(expect.arrayContaining(['compiling', 'linking']));
  const bashEnd = events.findIndex((event) => event.type === 'tool_end');
  expect(events.indexOf(progress.at(-1)!)).toBeLessThan(bashEnd);
  expect(
    deltasOf(events, 1)
      .map((event) => event.text)
      .join(''),
  ).toBe('Built and read.');
  expect(events.at(-1)).toMatchObject({ type: 'result', reason: 'completed', turn: 4 });
});
