/**
 * Prompt cache: the share of input tokens read from the cache over turns 2–70 of a read-heavy
 * 70-turn session that crosses the microcompact threshold, with the default window and with a
 * small one, the fake API simulating Anthropic's prompt caching (test/support/prompt-cache.ts).
 */
import type { AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import { isCompaction, reply, text, toolUse, type RecordedRequest } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { PromptCache } from '../../test/support/prompt-cache';
import { round, type Row } from './support';

const TURNS = 70;

export async function promptCache(harness: Harness): Promise<Row[]> {
  return [
    await session(harness, { lineChars: 99, lines: 100, label: 'a 10,000-character Read a turn, 200K window' }),
    await session(harness, {
      lineChars: 59,
      lines: 40,
      contextWindowTokens: 30_000,
      label: 'a 2,400-character Read a turn, 30,000-token window',
    }),
  ];
}

/**
 * Issue 26: a 70-turn session whose context grows ~6K tokens a turn (a 24,000-character Read),
 * 200K window: it crosses the microcompact threshold (and the autocompact one) on the way.
 */
export async function promptCacheGrowing(harness: Harness): Promise<Row[]> {
  const rows: Row[] = [];
  for (const maxOutputTokens of [undefined, 32_000]) {
    const row = await session(harness, {
      lineChars: 239,
      lines: 100,
      ...(maxOutputTokens ? { maxOutputTokens } : {}),
      label: `context growing ~6K tokens a turn (a 24,000-character Read), 200K window, maxOutputTokens ${maxOutputTokens ?? 'default (8,192)'}`,
    });
    rows.push({ ...row, command: 'npm run bench -- --only cachegrow' });
  }
  return rows;
}

async function session(
  harness: Harness,
  shape: { lineChars: number; lines: number; contextWindowTokens?: number; maxOutputTokens?: number; label: string },
): Promise<Row> {
  const files = Object.fromEntries(
    Array.from({ length: TURNS }, (_, index) => [
      `f${index}.txt`,
      `${String(index % 10).repeat(shape.lineChars)}\n`.repeat(shape.lines),
    ]),
  );
  const usage: { read: number; all: number }[] = [];
  let reads = 0;
  harness.fake.promptCache = new PromptCache();
  harness.fake.handler = (request: RecordedRequest) => {
    if (isCompaction(request)) return reply([text('<summary>Read the files.</summary>')]);
    return reads < TURNS - 1 ? reply([toolUse('Read', { file_path: `f${reads++}.txt` })]) : reply([text('done')]);
  };
  const window = shape.contextWindowTokens ? { contextWindowTokens: shape.contextWindowTokens } : {};
  const handle = await harness.start({
    prompt: 'read every file',
    workdir: makeRepo(files),
    maxTurns: TURNS + 5,
    toolSummaries: false,
    ...window,
    ...(shape.maxOutputTokens ? { maxOutputTokens: shape.maxOutputTokens } : {}),
  });
  const result = (await handle.result()) as { reason: string };
  harness.fake.promptCache = undefined;
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 10_000 });
  for (const entry of entries) {
    if (entry.type !== 'assistant') continue;
    const { inputTokens, cacheReadInputTokens, cacheCreationInputTokens } = entry.usage;
    usage.push({ read: cacheReadInputTokens, all: inputTokens + cacheReadInputTokens + cacheCreationInputTokens });
  }
  const later = usage.slice(1); // turns 2–70
  const share = later.reduce((sum, turn) => sum + turn.read, 0) / later.reduce((sum, turn) => sum + turn.all, 0);
  const state = await handle.query<AgentState>('state');
  const edits = state.contextEdits.filter((edit) => edit === 'microcompact').length;
  return {
    figure: `Prompt cache: share of input tokens read from the cache over turns 2–${TURNS} of a read-heavy ${TURNS}-turn session crossing the microcompact threshold (${shape.label}; the fake simulates Anthropic's caching)`,
    value: `${round(share * 100, 1)}% read from the cache over ${later.length} requests; ${edits} microcompactions, ${state.contextEdits.filter((edit) => edit === 'autocompact').length} autocompactions; ${result.reason}`,
    command: 'npm run bench -- --only cache',
  };
}
