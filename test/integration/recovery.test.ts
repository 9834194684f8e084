/**
 * The recovery layers against the fake model: each test injects a fault and asserts what the
 * model receives next, and the transitions the run took.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { CONTINUATION_PREAMBLE } from '../../src/activities/model/compact';
import { RESUME_AFTER_MAX_TOKENS } from '../../src/workflows/loop';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import {
  apiError,
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

const promptTooLong = () => apiError(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum');
const summaryReply = (summary: string) => reply([text(`<analysis>thinking</analysis>\n<summary>\n${summary}\n</summary>`)]);

/** Runs a session; returns its result, its state at the end and the requests the model received. */
async function session(
  files: Record<string, string>,
  handler: (request: RecordedRequest, index: number) => FakeReply,
  input: Record<string, unknown> = {},
): Promise<{ result: AgentResult; state: AgentState; requests: RecordedRequest[]; handle: WorkflowHandle; workdir: string }> {
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
  Object.fromEntries(Array.from({ length: count }, (_, index) => [`f${index}.txt`, `${String(index).repeat(39)}\n`.repeat(size / 40)]));

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
  const { result, state, requests } = await session({}, (_request, index) => reply([text(`part ${index} `)], 'max_tokens'));
  expect(result).toMatchObject({ reason: 'max_output_tokens', turnCount: 1, finalText: 'part 4 ' });
  expect(requests).toHaveLength(5);
  expect(requests.map((request) => request.body.max_tokens)).toEqual([8192, 64000, 64000, 64000, 64000]);
  for (const [index, request] of requests.slice(2).entries()) {
    const messages = request.body.messages;
    expect(messages).toHaveLength(1 + 2 * (index + 1));
    expect(messages[messages.length - 2]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: `part ${index + 1} ` }] });
    expect(JSON.stringify(messages[messages.length - 1])).toContain(RESUME_AFTER_MAX_TOKENS);
  }
  expect(state.transitions).toEqual(['max_output_tokens_escalate', 'max_output_tokens_recovery', 'max_output_tokens_recovery', 'max_output_tokens_recovery']);
});

test('prompt too long: one collapse, then one reactive compaction, then prompt_too_long', async () => {
  let toolTurns = 0;
  const { result, state, requests } = await session(readFiles(5, 400), (request) => {
    if (isCompaction(request)) return summaryReply('Read five files; nothing changed yet.');
    if (toolTurns < 5 && turnOf(request) === toolTurns) return reply([toolUse('Read', { file_path: `f${toolTurns++}.txt` })]);
    return promptTooLong();
  });
  expect(result).toMatchObject({ reason: 'prompt_too_long', error: expect.stringContaining('prompt is too long') });
  expect(state.transitions).toEqual([...Array(5).fill('next_turn'), 'collapse_drain_retry', 'reactive_compact_retry']);
  const afterTools = requests.slice(5);
  expect(afterTools.map((request) => (isCompaction(request) ? 'compact' : 'model'))).toEqual(['model', 'model', 'compact', 'model']);
  const [tooLong, collapsed, compaction, compacted] = afterTools as [RecordedRequest, RecordedRequest, RecordedRequest, RecordedRequest];
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
    if (toolTurns < 5 && turnOf(request) === toolTurns) return reply([toolUse('Read', { file_path: `f${toolTurns++}.txt` })]);
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
      if (requestText(request).includes('SUMMARY-MARKER')) return reply([text(`Continued after the summary (${reads}).`)]);
      return reply([toolUse('Read', { file_path: `f${turn}.txt` })]);
    },
    { contextWindowTokens: 30_000 },
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
    (request) => (request.body.model === 'claude-sonnet-5-5' ? apiError(529, 'overloaded_error', 'Overloaded') : reply([text('Answered by the fallback.')])),
    { fallbackModel: 'claude-haiku-5-5', fallbackAfterOverloads: 2 },
  );
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Answered by the fallback.' });
  expect(requests.map((request) => request.body.model)).toEqual(['claude-sonnet-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5']);
  expect(state).toMatchObject({ model: 'claude-haiku-5-5', transitions: ['model_fallback_retry'] });
});

test('media too large with no media to strip ends with image_error', async () => {
  const { result, state, requests } = await session({}, () => apiError(400, 'invalid_request_error', 'messages.0.content.1.image.source.base64: image exceeds 5 MB maximum'));
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
    (_request, index) => (index < turns ? reply([toolUse('Read', { file_path: `f${index}.txt` })]) : reply([text('read them all')])),
    { contextWindowTokens: 30_000, maxTurns: 40 },
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
