/**
 * The recovery layers against the fake model: each test injects a fault and asserts what the
 * model receives next, and the transitions the run took.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { CONTINUATION_PREAMBLE } from '../../src/activities/model/compact';
import { RESUME_AFTER_MAX_TOKENS } from '../../src/workflows/core/loop';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import {
  apiError,
  estimateInputTokens,
  isCompaction,
  lastToolResults,
  reply,
  requestText,
  text,
  toolResultText,
  toolUse,
  turnOf,
  type FakeReply,
  type RecordedRequest,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();

const promptTooLong = () =>
  apiError(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum');
const summaryReply = (summary: string) =>
  reply([text(`<analysis>thinking</analysis>\n<summary>\n${summary}\n</summary>`)]);

/** Runs a session; returns its result, its state at the end and the requests the model received. */
async function session(
  files: Record<string, string>,
  handler: (request: RecordedRequest, index: number) => FakeReply,
  input: Record<string, unknown> = {},
): Promise<{
  result: AgentResult;
  state: AgentState;
  requests: RecordedRequest[];
  handle: WorkflowHandle;
  workdir: string;
}> {
  const workdir = makeRepo(files);
  const requests: RecordedRequest[] = [];
  harness.fake.handler = (request) => {
    requests.push(request);
    return handler(request, requests.length - 1);
  };
  const handle = await harness.start({ prompt: 'Do the task', workdir, ...input });
  const result = (await handle.result()) as AgentResult;
  const state = await handle.query<AgentState>('state');
  return { result, state, requests, handle, workdir };
}

const readFiles = (count: number, size: number) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`f${index}.txt`, `${String(index).repeat(39)}\n`.repeat(size / 40)]),
  );

test('output cut off: the same request is retried once with max_tokens 64000, and the run completes', async () => {
  const { result, state, requests } = await session({}, (_request, index) =>
    index === 0 ? reply([text('The answer begins')], 'max_tokens') : reply([text('The whole answer.')]),
  );
  expect(result).toMatchObject({ reason: 'completed', turnCount: 1, finalText: 'The whole answer.' });
  expect(requests.map((request) => request.body.max_tokens)).toEqual([8192, 64000]);
  expect(requests[1]!.body.messages).toEqual(requests[0]!.body.messages); // the cut reply was withheld
  expect(state.transitions).toEqual(['max_output_tokens_escalate']);
});

test('output cut off again and again: three resume messages, then the run ends with what was produced', async () => {
  const { result, state, requests } = await session({}, (_request, index) =>
    reply([text(`part ${index} `)], 'max_tokens'),
  );
  expect(result).toMatchObject({ reason: 'max_output_tokens', turnCount: 1, finalText: 'part 4 ' });
  expect(requests).toHaveLength(5);
  expect(requests.map((request) => request.body.max_tokens)).toEqual([8192, 64000, 64000, 64000, 64000]);
  for (const [index, request] of requests.slice(2).entries()) {
    const messages = request.body.messages;
    expect(messages).toHaveLength(1 + 2 * (index + 1));
    expect(messages[messages.length - 2]).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: `part ${index + 1} ` }],
    });
    expect(JSON.stringify(messages[messages.length - 1])).toContain(RESUME_AFTER_MAX_TOKENS);
  }
  expect(state.transitions).toEqual([
    'max_output_tokens_escalate',
    'max_output_tokens_recovery',
    'max_output_tokens_recovery',
    'max_output_tokens_recovery',
  ]);
});

test('prompt too long: one collapse, then one reactive compaction, then prompt_too_long', async () => {
  let toolTurns = 0;
  const { result, state, requests } = await session(readFiles(5, 400), (request) => {
    if (isCompaction(request)) return summaryReply('Read five files; nothing changed yet.');
    if (toolTurns < 5 && turnOf(request) === toolTurns)
      return reply([toolUse('Read', { file_path: `f${toolTurns++}.txt` })]);
    return promptTooLong();
  });
  expect(result).toMatchObject({ reason: 'prompt_too_long', error: expect.stringContaining('prompt is too long') });
  expect(state.transitions).toEqual([...Array(5).fill('next_turn'), 'collapse_drain_retry', 'reactive_compact_retry']);
  const afterTools = requests.slice(5);
  expect(afterTools.map((request) => (isCompaction(request) ? 'compact' : 'model'))).toEqual([
    'model',
    'model',
    'compact',
    'model',
  ]);
  const [tooLong, collapsed, compaction, compacted] = afterTools as [
    RecordedRequest,
    RecordedRequest,
    RecordedRequest,
    RecordedRequest,
  ];
  // The collapse archived older turns without a model call: a smaller request with a note.
  expect(collapsed.body.messages.length).toBeLessThan(tooLong.body.messages.length);
  expect(requestText(collapsed)).toContain('[Context collapsed:');
  expect(requestText(collapsed)).toContain('- ran Read f0.txt');
  expect(compaction.body.tool_choice).toEqual({ type: 'none' });
  // The retry after the compaction carries the summary (and the files read last) and is smaller.
  expect(compacted.body.messages).toHaveLength(1);
  expect(requestText(compacted)).toContain(CONTINUATION_PREAMBLE);
  expect(requestText(compacted)).toContain('Read five files; nothing changed yet.');
  expect(JSON.stringify(compacted.body.messages).length).toBeLessThan(JSON.stringify(tooLong.body.messages).length);
});

test('prompt too long once: the collapsed request goes through and the run completes', async () => {
  let toolTurns = 0;
  let refused = false;
  const { result, state } = await session(readFiles(5, 400), (request) => {
    if (toolTurns < 5 && turnOf(request) === toolTurns)
      return reply([toolUse('Read', { file_path: `f${toolTurns++}.txt` })]);
    if (!refused) {
      refused = true;
      return promptTooLong();
    }
    return reply([text('Done after the collapse.')]);
  });
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Done after the collapse.' });
  expect(state.transitions.filter((name) => name !== 'next_turn')).toEqual(['collapse_drain_retry']);
  expect(state.contextEdits).toEqual(['collapse']);
});

test('autocompact: near the context window the conversation is summarised, recent files re-attached, and the work goes on', async () => {
  // A 30,000-token window: autocompact above 30,000 − 8,192 − 13,000 = 8,808 estimated tokens.
  const { result, state, requests } = await session(
    readFiles(6, 8000),
    (request) => {
      if (isCompaction(request)) return summaryReply('SUMMARY-MARKER: read files f0 to f4.');
      const reads = lastToolResults(request).length ? requestText(request).split('<file path=').length : 0;
      const turn = turnOf(request);
      if (requestText(request).includes('SUMMARY-MARKER'))
        return reply([text(`Continued after the summary (${reads}).`)]);
      return reply([toolUse('Read', { file_path: `f${turn}.txt` })]);
    },
    // Read alone: the window is measured against the tools' definitions too, and this test is about the messages.
    { contextWindowTokens: 30_000, allowedTools: ['Read'] },
  );
  expect(result).toMatchObject({ reason: 'completed' });
  expect(result.finalText).toMatch(/^Continued after the summary/);
  expect(state.contextEdits).toContain('autocompact');
  expect(new Set(state.transitions)).toEqual(new Set(['next_turn'])); // autocompact is an edit, not a retry
  const compactionIndex = requests.findIndex(isCompaction);
  expect(compactionIndex).toBeGreaterThan(1);
  const before = requests[compactionIndex - 1]!;
  const after = requests[compactionIndex + 1]!;
  expect(after.body.messages).toHaveLength(1);
  expect(requestText(after)).toContain(CONTINUATION_PREAMBLE);
  expect(requestText(after)).toContain('SUMMARY-MARKER');
  expect(requestText(after)).toMatch(/<file path="f\d\.txt">/); // the newest read file, as it is now
  expect(JSON.stringify(after.body.messages).length).toBeLessThan(JSON.stringify(before.body.messages).length / 2);
});

test('a 529 storm switches to the fallback model', async () => {
  const { result, state, requests } = await session(
    {},
    (request) =>
      request.body.model === 'claude-sonnet-5-5'
        ? apiError(529, 'overloaded_error', 'Overloaded')
        : reply([text('Answered by the fallback.')]),
    { fallbackModel: 'claude-haiku-5-5', fallbackAfterOverloads: 2 },
  );
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Answered by the fallback.' });
  expect(requests.map((request) => request.body.model)).toEqual([
    'claude-sonnet-5-5',
    'claude-sonnet-5-5',
    'claude-haiku-5-5',
  ]);
  expect(state).toMatchObject({ model: 'claude-haiku-5-5', transitions: ['model_fallback_retry'] });
});

test('media too large with no media to strip ends with image_error', async () => {
  const { result, state, requests } = await session({}, () =>
    apiError(400, 'invalid_request_error', 'messages.0.content.1.image.source.base64: image exceeds 5 MB maximum'),
  );
  expect(result).toMatchObject({ reason: 'image_error', error: expect.stringContaining('image exceeds 5 MB maximum') });
  expect(requests).toHaveLength(1);
  expect(state.transitions).toEqual([]); // nothing to strip: no retry
});

test('tool-result budget: a result over 50,000 characters is kept out of the context, saved under .agent/', async () => {
  const big = Array.from({ length: 1500 }, (_, index) => `line ${index} ${'z'.repeat(40)}`).join('\n');
  const { result, state, requests, workdir } = await session({ 'big.txt': big }, (request) =>
    turnOf(request) === 0 ? reply([toolUse('Read', { file_path: 'big.txt' }, 'toolu_big_read')]) : reply([text('ok')]),
  );
  expect(result.reason).toBe('completed');
  expect(state.transitions).toEqual(['next_turn']);
  const seen = toolResultText(lastToolResults(requests[1]!)[0]!);
  expect(seen.length).toBeLessThan(3_000);
  expect(seen).toContain('saved to .agent/tool-results/toolu_big_read.txt');
  expect(seen).toContain('Preview (first 2000 characters):');
  const saved = readFileSync(join(workdir, '.agent/tool-results/toolu_big_read.txt'), 'utf8');
  expect(saved).toContain('  1500\tline 1499');
  expect(existsSync(join(workdir, '.agent/.gitignore'))).toBe(true);
});

test('microcompact keeps a long session under the threshold without a model call', async () => {
  // A 30,000-token window: edits start above 80% of 8,808 tokens; each turn reads ~2.4 KB.
  const turns = 16;
  const { result, state, requests } = await session(
    readFiles(turns, 2400),
    // By request count, not by turnOf(): snipped requests hold fewer assistant messages.
    (_request, index) =>
      index < turns ? reply([toolUse('Read', { file_path: `f${index}.txt` })]) : reply([text('read them all')]),
    // Read alone: tool definitions are part of every request and the window is measured against
    // them, so the file tools' growing schemas (Claude Code's fields) must not move this test's margin.
    { contextWindowTokens: 30_000, maxTurns: 40, allowedTools: ['Read'] },
  );
  expect(result).toMatchObject({ reason: 'completed', turnCount: turns + 1 });
  expect(requests.some(isCompaction)).toBe(false); // the cheap edits were enough
  expect(state.contextEdits).toContain('microcompact');
  expect(state.contextEdits).not.toContain('snip'); // snip answers a long history (400+ messages), not a large one
  expect(state.transitions).toEqual(Array(turns).fill('next_turn'));
  const last = requestText(requests[requests.length - 1]!);
  expect(last).toContain('[Old tool result content cleared]');
  // The most recent results are intact.
  expect(last).toContain(`${String(turns - 1).repeat(39)}`);
  // The task itself is never snipped.
  expect(requests[requests.length - 1]!.body.messages[0]).toMatchObject({ role: 'user' });
  expect(last.startsWith('Do the task')).toBe(true);
});

test('an escalated model call may take as long as 64,000 tokens take: its timeout grows with max_tokens', async () => {
  const { handle } = await session({}, (_request, index) =>
    index === 0 ? reply([text('The answer begins')], 'max_tokens') : reply([text('Done.')]),
  );
  const history = await handle.fetchHistory();
  const modelCalls = (history.events ?? [])
    .map((event) => event.activityTaskScheduledEventAttributes)
    .filter((scheduled) => scheduled?.activityType?.name === 'callModel')
    .map((scheduled) => Number(scheduled!.startToCloseTimeout!.seconds));
  expect(modelCalls).toHaveLength(2);
  expect(modelCalls[0]).toBeGreaterThanOrEqual(10 * 60); // 8,192 tokens: the 10-minute floor
  expect(modelCalls[1]).toBeGreaterThan(50 * 60); // 64,000 tokens at 20 tokens/s, plus the time to start
});

test('an endpoint whose real window is smaller than declared: the session learns it, and the compaction request fits', async () => {
  const REAL_WINDOW = 20_000;
  let reads = 0;
  let compactions = 0;
  const { result, state, requests } = await session(readFiles(12, 20_000), (request) => {
    const tokens = estimateInputTokens(request.body);
    if (tokens > REAL_WINDOW)
      return apiError(400, 'invalid_request_error', `prompt is too long: ${tokens} tokens > ${REAL_WINDOW} maximum`);
    if (isCompaction(request)) return summaryReply(`Summary ${++compactions}: read the files.`);
    if (compactions > 0) return reply([text('Done within the real window.')]);
    return reply([
      toolUse('Read', { file_path: `f${reads++}.txt` }),
      toolUse('Read', { file_path: `f${reads++}.txt` }),
    ]);
  });
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Done within the real window.' });
  expect(state.transitions).toContain('reactive_compact_retry');
  const accepted = requests.filter((request) => estimateInputTokens(request.body) <= REAL_WINDOW);
  expect(accepted.filter(isCompaction).length).toBeGreaterThanOrEqual(1);
});

test('a 32K-token window: the tool-result budget shrinks with it', async () => {
  const file = Array.from({ length: 400 }, (_, index) => `line ${index} ${'z'.repeat(40)}`).join('\n'); // ~19,000 characters
  const { result, requests } = await session(
    { 'mid.txt': file },
    (request) =>
      turnOf(request) === 0 ? reply([toolUse('Read', { file_path: 'mid.txt' }, 'toolu_mid')]) : reply([text('ok')]),
    { contextWindowTokens: 32_000 },
  );
  expect(result.reason).toBe('completed');
  const seen = toolResultText(lastToolResults(requests[1]!)[0]!);
  expect(seen).toContain('saved to .agent/tool-results/toolu_mid.txt');
  expect(seen.length).toBeLessThan(3_000);
});

test("a stop hook's block keeps the turn's reactive compaction: a prompt still too long ends the run instead of compacting again", async () => {
  let compactions = 0;
  let answered = false;
  const { result } = await session(
    {},
    (request) => {
      if (isCompaction(request)) {
        compactions++;
        return summaryReply('Answered the question.');
      }
      // Too long at first, and again once the hook has sent the agent back to work.
      if (!answered && compactions === 0) return promptTooLong();
      if (requestText(request).includes('Stop hook feedback')) return promptTooLong();
      answered = true;
      return reply([text('The answer.')]);
    },
    { stopHooks: [{ command: 'echo "add a test" >&2; exit 2' }] },
  );
  expect(result).toMatchObject({ reason: 'prompt_too_long' });
  expect(compactions).toBe(1);
});

test('a context step that fails is skipped and noted; the session goes on', async () => {
  const { harnessWithFailingActivity } = await import('../support/failing-activity');
  const local = await harnessWithFailingActivity('prepareContext');
  try {
    let reads = 0;
    local.fake.handler = (request) => {
      if (isCompaction(request)) return summaryReply('Read the files.');
      return reads < 3
        ? reply([toolUse('Read', { file_path: `f${reads++}.txt` })])
        : reply([text('Done without the edits.')]);
    };
    // A 30,000-token window: the cheap edits start near 7,000 tokens, which three reads pass.
    const handle = await local.start({
      prompt: 'read',
      workdir: makeRepo(readFiles(3, 9_000)),
      contextWindowTokens: 30_000,
    });
    expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Done without the edits.' });
    const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 1000 });
    expect(entries).toContainEqual(
      expect.objectContaining({
        type: 'context',
        edits: [],
        error: expect.stringContaining('snip, microcompact skipped: injected failure'),
      }),
    );
  } finally {
    await local.stop();
  }
});

test('an image the API refuses as too large is stripped from the tool result, and the request goes again without it', async () => {
  const workdir = makeRepo({});
  writeFileSync(join(workdir, 'shot.png'), Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(3_000)]));
  const before = harness.fake.requests.length;
  let answered = 0;
  harness.fake.maxImageBytes = 2_000;
  // The refused request never reaches the handler: the fake's size check answers it, as the API would.
  harness.fake.handler = () =>
    answered++ === 0 ? reply([toolUse('Read', { file_path: 'shot.png' })]) : reply([text('Looked at what was left.')]);
  try {
    const handle = await harness.start({ prompt: 'look at the screenshot', workdir });
    expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Looked at what was left.' });
    const state = await handle.query<AgentState>('state');
    expect(state.transitions).toEqual(['next_turn', 'media_strip_retry']);
    expect(state.contextEdits).toEqual(['media_strip']);
  } finally {
    harness.fake.maxImageBytes = 5 * 1024 * 1024;
  }
  const [, refused, retried] = harness.fake.requests.slice(before) as [
    RecordedRequest,
    RecordedRequest,
    RecordedRequest,
  ];
  const imageOf = (request: RecordedRequest) =>
    JSON.stringify(lastToolResults(request)[0]!.content).includes('"type":"image"');
  expect(imageOf(refused)).toBe(true);
  expect(JSON.stringify(lastToolResults(refused)[0]!.content)).toContain('"media_type":"image/png"');
  expect(imageOf(retried)).toBe(false);
  expect(toolResultText(lastToolResults(retried)[0]!)).toContain('removed: the API refused it as too large');
});
