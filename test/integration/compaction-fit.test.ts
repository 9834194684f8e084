/**
 * Compaction that always fits (issue 26): an endpoint whose real window is smaller than the model
 * table says refuses with "prompt is too long: N tokens > M maximum"; the session learns M, and
 * every compaction request it builds fits M minus its output. The task: rename parseConfig to
 * loadConfig in every file (a Read, then an Edit, per file), scripted step by step.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import {
  apiError,
  estimateInputTokens,
  isCompaction,
  reply,
  text,
  toolUse,
  type RecordedRequest,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(180_000);

const harness = fileHarness();

afterEach(() => {
  harness.fake.contextWindowTokens = undefined;
});

/** `count` files that call parseConfig, each about `chars` long. */
function renameRepo(count: number, chars: number): Record<string, string> {
  const padding = (index: number) => `// module ${index}: ${'settings and defaults '.repeat(chars / 22)}\n`;
  return Object.fromEntries(
    Array.from({ length: count }, (_, index) => [
      `m${index}.ts`,
      `${padding(index)}export const value${index} = parseConfig('m${index}');\n`,
    ]),
  );
}

/** The rename task against a server whose real window is `window`; every request it answered, refused or not. */
async function renameTask(files: number, chars: number, window: number, sayChars = 0, compactionWindow = window) {
  const workdir = makeRepo(renameRepo(files, chars));
  const sent: RecordedRequest[] = [];
  let step = 0;
  harness.fake.contextWindowTokens = window;
  harness.fake.handler = (request) => {
    sent.push(request);
    const tokens = estimateInputTokens(request.body);
    if (isCompaction(request) && tokens > compactionWindow)
      return apiError(
        400,
        'invalid_request_error',
        `prompt is too long: ${tokens} tokens > ${compactionWindow} maximum`,
      );
    if (isCompaction(request))
      return reply([text(`<summary>Renaming parseConfig to loadConfig file by file; next is step ${step}.</summary>`)]);
    const file = `m${Math.floor(step / 2)}.ts`;
    const current = step++;
    if (current >= files * 2) return reply([text('Renamed parseConfig to loadConfig everywhere.')]);
    // What the model says along with each call (no context edit clears it: only a compaction does).
    const say = sayChars ? [text(`Step ${current}: ${'thinking about the rename '.repeat(sayChars / 26)}`)] : [];
    return current % 2 === 0
      ? reply([...say, toolUse('Read', { file_path: file })])
      : reply([...say, toolUse('Edit', { file_path: file, old_string: 'parseConfig', new_string: 'loadConfig' })]);
  };
  const handle = await harness.start({
    prompt: 'Rename parseConfig to loadConfig in every file',
    workdir,
    allowedTools: ['Read', 'Edit'],
    toolSummaries: false,
    maxTurns: files * 2 + 10,
  });
  const result = (await handle.result()) as AgentResult;
  const state = await handle.query<AgentState>('state');
  const renamed = Array.from({ length: files }, (_, index) =>
    readFileSync(join(workdir, `m${index}.ts`), 'utf8').includes(`loadConfig('m${index}')`),
  );
  return { result, state, sent, renamed };
}

/** The requests the fake refused for the window: never the same one twice. */
function refusedBodies(requests: RecordedRequest[], window: number): string[] {
  return requests.filter((request) => estimateInputTokens(request.body) > window).map((r) => JSON.stringify(r.body));
}

test('the rename task completes against a 4,400-token window the model table does not know', async () => {
  const from = harness.fake.requests.length;
  const { result, state, sent, renamed } = await renameTask(6, 1_600, 4_400);
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Renamed parseConfig to loadConfig everywhere.' });
  expect(renamed).toEqual(Array(6).fill(true));
  expect(state.learnedContextWindow).toBe(4_400);
  const refused = refusedBodies(harness.fake.requests.slice(from), 4_400);
  expect(refused.length).toBeGreaterThanOrEqual(1); // the window was learned from a refusal…
  expect(new Set(refused).size).toBe(refused.length); // …and no overflowing request went twice
  const compactions = sent.filter(isCompaction);
  expect(compactions.length).toBeGreaterThanOrEqual(1);
  // Every compaction request fitted the window minus its output, at the first attempt.
  for (const compaction of compactions)
    expect(estimateInputTokens(compaction.body) + compaction.body.max_tokens).toBeLessThanOrEqual(4_400);
  expect(refused.filter((body) => body.includes('write a detailed summary'))).toEqual([]);
  // Once learned, a turn's reply may take at most a quarter of the window.
  const learnedAt = sent.findIndex(isCompaction);
  expect(sent.slice(learnedAt).every((request) => request.body.max_tokens <= 1_100)).toBe(true);
});

test('the rename task completes against a 32K window over 50 turns', async () => {
  const from = harness.fake.requests.length;
  const { result, state, sent, renamed } = await renameTask(25, 5_000, 32_000, 3_000);
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Renamed parseConfig to loadConfig everywhere.' });
  expect(result.turnCount).toBeGreaterThanOrEqual(50);
  expect(renamed).toEqual(Array(25).fill(true));
  expect(state.learnedContextWindow).toBe(32_000);
  const refused = refusedBodies(harness.fake.requests.slice(from), 32_000);
  expect(refused).toHaveLength(1); // learned once, then every request fitted
  const compactions = sent.filter(isCompaction);
  expect(compactions.length).toBeGreaterThanOrEqual(1);
  for (const compaction of compactions)
    expect(estimateInputTokens(compaction.body) + compaction.body.max_tokens).toBeLessThanOrEqual(32_000);
});

test('a compaction refused anyway shrinks by what the refusal says: never the same request twice, each smaller', async () => {
  const { result, sent, renamed } = await renameTask(6, 1_600, 4_400, 0, 2_200);
  expect(result).toMatchObject({ reason: 'completed' });
  expect(renamed).toEqual(Array(6).fill(true));
  const compactions = sent.filter(isCompaction).map((request) => estimateInputTokens(request.body));
  expect(compactions.some((tokens) => tokens > 2_200)).toBe(true); // refused at first…
  expect(compactions.some((tokens) => tokens <= 2_200)).toBe(true); // …then one that fits
  const bodies = sent.filter(isCompaction).map((request) => JSON.stringify(request.body));
  expect(new Set(bodies).size).toBe(bodies.length);
  // Within one compaction, each attempt is smaller than the one refused before it.
  compactions.forEach((tokens, index) => {
    if (index > 0 && compactions[index - 1]! > 2_200) expect(tokens).toBeLessThan(compactions[index - 1]!);
  });
});
