/**
 * Promises of the docs that had only unit tests, or none: parallel calls really overlap, the
 * prompt-cache breakpoints, a 429's retry-after, the current details the UI shows, snip, the
 * autocompact circuit breaker, stop hooks skipped on the prompt-too-long path, and the stop-hook
 * block cap with Claude Code's block JSON.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentState } from '../../src/shared/contract';
import {
  apiError,
  isCompaction,
  reply,
  text,
  toolUse,
  type FakeReply,
  type RecordedRequest,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(180_000);

const harness = fileHarness();

function script(handler: (request: RecordedRequest, index: number) => FakeReply): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  harness.fake.handler = (request) => {
    requests.push(request);
    return handler(request, requests.length - 1);
  };
  return requests;
}

const eventMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

test('concurrency-safe calls of one response run at the same time, not one after another', async () => {
  const files: Record<string, string> = {};
  for (let index = 0; index < 3000; index++)
    files[`src/m${index}.ts`] = `export const v${index} = ${index};\n`.repeat(30);
  script((_request, index) =>
    index === 0
      ? reply([0, 1, 2].map((call) => toolUse('Grep', { pattern: `v${call}\\d*`, output_mode: 'count' })))
      : reply([text('counted')]),
  );
  const handle = await harness.start({ prompt: 'count', workdir: makeRepo(files), toolSummaries: false });
  await handle.result();
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = new Set(
    events
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool')
      .map((event) => String(event.eventId)),
  );
  const started = events
    .filter((event) => scheduled.has(String(event.activityTaskStartedEventAttributes?.scheduledEventId)))
    .map((event) => eventMs(event.eventTime));
  const completed = events
    .filter((event) => scheduled.has(String(event.activityTaskCompletedEventAttributes?.scheduledEventId)))
    .map((event) => eventMs(event.eventTime));
  expect(started).toHaveLength(3);
  // Every call had started before the first one finished.
  expect(Math.max(...started)).toBeLessThan(Math.min(...completed));
});

test('each request marks the prompt-cache breakpoints: the tools, the system prompt, the end of the conversation', async () => {
  const requests = script((_request, index) =>
    index === 0 ? reply([toolUse('Glob', { pattern: '*' })]) : reply([text('done')]),
  );
  await (await harness.start({ prompt: 'look', workdir: makeRepo({ 'a.txt': 'a' }), toolSummaries: false })).result();
  for (const request of requests) {
    const tools = request.body.tools!;
    expect(tools.map((tool) => 'cache_control' in tool)).toEqual([...Array(tools.length - 1).fill(false), true]);
    expect(request.body.system).toEqual([expect.objectContaining({ cache_control: { type: 'ephemeral' } })]);
    const last = request.body.messages[request.body.messages.length - 1]!;
    const blocks = last.content as { cache_control?: unknown }[];
    expect(blocks[blocks.length - 1]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(JSON.stringify(request.body.messages.slice(0, -1))).not.toContain('cache_control');
  }
});

test("a 429 waits for the API's retry-after before the next attempt", async () => {
  const arrivals: number[] = [];
  script((_request, index) => {
    arrivals.push(performance.now());
    return index === 0
      ? apiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '3' })
      : reply([text('finally')]);
  });
  expect(await (await harness.start({ prompt: 'hi', workdir: makeRepo({}) })).result()).toMatchObject({
    reason: 'completed',
  });
  // Temporal's own first backoff is 2 s: the 3 s wait can only be the retry-after.
  expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(2_900);
});

test('the current details the Temporal UI shows: turn, what runs, model, transition, tokens', async () => {
  script(() => reply([text('Hello.')]));
  const handle = await harness.start({ prompt: 'greet', workdir: makeRepo({}), interactive: true });
  let details = '';
  // The start snapshot runs beside the first model call: the details name it once it is taken.
  while (!details.includes('waiting for a message') || !details.includes('- workspace:')) {
    details =
      (
        (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata').catch(() => ({}))) as {
          currentDetails?: string;
        }
      ).currentDetails ?? '';
  }
  expect(details).toMatch(
    /^\*\*Turn 1\*\* · waiting for a message \(signal `userMessage`, or `end`\)\n- model: claude-sonnet-5-5\n- permission mode: bypassPermissions\n- last transition: —\n- context: ~\d+ tokens\n- tokens: \d+ in, \d+ out, 0 read from cache\n- cost: \$\d+\.\d{4} \(sub-agents included\)\n- workspace: last snapshot after turn 0 \(`sha256:[0-9a-f]{12}…`, 1 in all\)$/,
  );
  await handle.signal('end');
  await handle.result();
  const final = (
    (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')) as { currentDetails?: string }
  ).currentDetails;
  expect(final).toMatch(/^\*\*Turn 1\*\* · finished: \*\*completed\*\*/);
});

test('snip: past 400 messages the oldest turns are dropped, the task and the most recent turns kept', async () => {
  const turns = 205;
  const requests = script((_request, index) =>
    index < turns ? reply([toolUse('Glob', { pattern: 'a.txt' })]) : reply([text('enough')]),
  );
  const handle = await harness.start({
    prompt: 'keep looking',
    workdir: makeRepo({ 'a.txt': 'a' }),
    maxTurns: turns + 5,
    toolSummaries: false,
  });
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
  const state = await handle.query<AgentState>('state');
  expect(state.contextEdits).toContain('snip');
  const last = requests[requests.length - 1]!;
  // Snipped at 401 messages to the task, a marker and the 200 most recent, then a few turns more.
  expect(last.body.messages.length).toBeLessThan(220);
  // The task and the marker (two user messages, merged into one as the API wants), then an assistant turn.
  expect(JSON.stringify(last.body.messages[0])).toContain('keep looking');
  expect(JSON.stringify(last.body.messages[0])).toContain('earlier messages of this session were snipped');
  expect(last.body.messages[1]!.role).toBe('assistant');
});

test('autocompact circuit breaker: after three failed compactions in a row, no more are tried', async () => {
  let turns = 0;
  const requests = script((request) => {
    if (isCompaction(request)) return apiError(400, 'invalid_request_error', 'the summary request was refused');
    return turns++ < 6 ? reply([toolUse('Glob', { pattern: '*' })]) : reply([text('done anyway')]);
  });
  // A task of about 10,000 tokens: over the 8,808-token autocompact threshold of a 30,000-token window from the start.
  const prompt = `Keep this in mind: ${'the quick brown fox jumps over the lazy dog '.repeat(930)}`;
  const handle = await harness.start({
    prompt,
    workdir: makeRepo({ 'a.txt': 'a' }),
    contextWindowTokens: 30_000,
    toolSummaries: false,
  });
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'done anyway' });
  expect(requests.filter(isCompaction)).toHaveLength(3);
  expect(requests.filter((request) => !isCompaction(request))).toHaveLength(7);
});

test('stop hooks never run on the prompt-too-long path', async () => {
  const workdir = makeRepo({});
  const marker = join(workdir, 'hook-ran');
  script(() => apiError(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'));
  const result = await harness.run({ prompt: 'go', workdir, stopHooks: [{ command: `touch ${marker}` }] });
  expect(result).toMatchObject({ reason: 'prompt_too_long' });
  expect(existsSync(marker)).toBe(false);
});

test("a hook that blocks every end with Claude Code's block JSON is cut off after 8 blocks: stop_hook_limit", async () => {
  const requests = script(() => reply([text('done, I promise')]));
  const result = await harness.run({
    prompt: 'go',
    workdir: makeRepo({}),
    stopHooks: [{ command: `echo '{"decision":"block","reason":"not yet"}'` }],
  });
  expect(result).toMatchObject({
    reason: 'stop_hook_limit',
    error: expect.stringContaining('blocked the end of the session 8 times in a row; the last reason: not yet'),
  });
  expect(requests).toHaveLength(9);
  expect(JSON.stringify(requests[1]!.body.messages)).toContain('Stop hook feedback:\\nnot yet');
});
