/**
 * The scripted model of the side-by-side benchmark (side-by-side.ts): one script that durable-agent
 * and Claude Code's headless CLI can both follow, answered by what each request asks.
 *
 * - A request is classified (`requestKind`): `main` (it offers the Read tool: the agent's loop),
 *   `compaction` (it asks for a summary of the conversation), `side` (anything else: a title, a
 *   summary of tool calls, on whichever model) — each kind counted.
 * - The script is a list of tool calls (only Read, Edit and Bash, which both agents offer); each
 *   `tool_use` id names its step (`toolu_sbs<step>_…`), so the fake knows which steps are done from
 *   the results it has seen, across compactions and restarts: a step whose result was an error (a
 *   command lost with its process) is asked for again, as a model would.
 * - Options put a rate-limit window (every request refused with 429 and reset headers) or a small
 *   context window (the real 400 `prompt is too long: N tokens > M maximum`) in front of the script.
 */
import { randomBytes } from 'node:crypto';
import {
  apiError,
  estimateInputTokens,
  type FakeHandler,
  type FakeReply,
  type RecordedRequest,
  reply,
  text,
  toolResultText,
  toolUse,
} from '../../test/support/fake-anthropic';

export type RequestKind = 'main' | 'compaction' | 'side';

/** A step of the script: a tool call, done once its result is not an error (and holds `expect`, if given). */
export interface ScriptStep {
  name: 'Read' | 'Edit' | 'Bash';
  input: Record<string, unknown>;
  expect?: string;
}

/** What a request asks for, by what it carries (both agents' compaction prompts ask for a "summary of the conversation"). */
export function requestKind(body: RecordedRequest['body']): RequestKind {
  const last = body.messages.at(-1);
  const lastText = JSON.stringify(last?.content ?? '');
  if (/summary of the conversation/i.test(lastText) || body.tool_choice?.type === 'none') return 'compaction';
  if (body.tools?.some((tool) => tool.name === 'Read')) return 'main';
  return 'side';
}

/** Characters of a request's system prompt (Claude Code's `system`-role messages included) and of its tools. */
export function promptSize(body: RecordedRequest['body']): { systemChars: number; toolsChars: number } {
  const systemMessages = body.messages.filter((message) => (message.role as string) === 'system');
  const systemChars =
    JSON.stringify(body.system ?? '').length + (systemMessages.length ? JSON.stringify(systemMessages).length : 0);
  return { systemChars, toolsChars: body.tools ? JSON.stringify(body.tools).length : 0 };
}

const STEP_ID = /^toolu_sbs(\d+)_/;

/** The steps whose results the request carries: done (not an error, the expected text there), or failed. */
export function stepResults(
  body: RecordedRequest['body'],
  steps: ScriptStep[],
): { done: number[]; failed: number[]; errors: string[] } {
  const done: number[] = [];
  const failed: number[] = [];
  const errors: string[] = [];
  for (const message of body.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const step = Number(STEP_ID.exec(block.tool_use_id ?? '')?.[1] ?? -1);
      if (!steps[step]) continue;
      const expected = steps[step].expect;
      const ok = block.is_error !== true && (!expected || toolResultText(block).includes(expected));
      (ok ? done : failed).push(step);
      if (!ok) errors.push(toolResultText(block));
    }
  }
  return { done, failed, errors };
}

/** What the fake saw of one run: requests by kind, refusals, tool calls asked for, times of main requests. */
export interface ScriptLog {
  kinds: Record<RequestKind, number>;
  models: Record<string, number>;
  rateLimited: number;
  tooLong: number;
  /** Tool calls the script asked for, by step (more than one: asked again). */
  asked: number[];
  mainAt: number[];
  sizes: { systemChars: number; toolsChars: number; inputTokens: number }[];
  /** Every step done and the final text sent. */
  finished: boolean;
  /** The text of each failed step result the agent sent (a lost command's report). */
  errors: string[];
  /** When each refused request came, from the window's start (ms). */
  refusedAt: number[];
  /** From the rate-limit window's end to the first request after it. */
  resumedAfterWindowMs?: number;
  /** Each request: its kind's initial, its estimated tokens, `!` if refused (`m4558`, `c9120!`). */
  sequence: string[];
  /** The first request's estimated tokens (the baseline a relative window is measured from). */
  firstTokens?: number;
}

export interface ScriptOptions {
  /** Refuse every request with 429 for this long, from the `fromMain`-th main request on (0-based). */
  rateLimit?: { windowMs: number; fromMain: number; retryAfterS?: number };
  /** The fake's context window: this many tokens above the first main request (the agent's own baseline). */
  windowAboveFirst?: number;
}

/** A handler that follows `steps`, then answers `done`; and the log of what it saw. */
export function scriptedModel(
  steps: ScriptStep[],
  options: ScriptOptions = {},
): { handler: FakeHandler; log: ScriptLog } {
  const log: ScriptLog = {
    kinds: { main: 0, compaction: 0, side: 0 },
    models: {},
    rateLimited: 0,
    tooLong: 0,
    asked: steps.map(() => 0),
    mainAt: [],
    sizes: [],
    finished: false,
    sequence: [],
    errors: [],
    refusedAt: [],
  };
  const done = new Set<number>();
  let limitedUntil = 0;
  const handler: FakeHandler = (request) => {
    const body = request.body;
    const kind = requestKind(body);
    // A result is seen by the model wherever it is: a compaction request may be the first to carry it.
    const results = stepResults(body, steps);
    results.done.forEach((step) => done.add(step));
    for (const error of results.errors) if (!log.errors.includes(error)) log.errors.push(error);
    const refused = refusal(body, kind);
    log.sequence.push(`${kind[0]}${estimateInputTokens(body)}${refused ? '!' : ''}`);
    if (refused) return refused;
    log.kinds[kind]++;
    log.models[body.model] = (log.models[body.model] ?? 0) + 1;
    if (kind === 'side') return reply([text('Side by side')]);
    if (kind === 'compaction')
      return reply([
        text(`<summary>Steps done so far: ${[...done].join(', ') || 'none'}. Go on with the task.</summary>`),
      ]);
    log.mainAt.push(performance.now());
    log.sizes.push({ ...promptSize(body), inputTokens: estimateInputTokens(body) });
    const next = steps.findIndex((_, index) => !done.has(index));
    if (next < 0) {
      log.finished = true;
      return reply([text('done')]);
    }
    log.asked[next]!++;
    return reply([
      toolUse(steps[next]!.name, steps[next]!.input, `toolu_sbs${next}_${randomBytes(6).toString('hex')}`),
    ]);
  };

  /** The rate limit's or the window's refusal of this request, if any (counted). */
  function refusal(body: RecordedRequest['body'], kind: RequestKind): FakeReply | undefined {
    const tokens = estimateInputTokens(body);
    if (kind === 'main') log.firstTokens ??= tokens;
    const limit = options.rateLimit;
    if (limit && !limitedUntil && kind === 'main' && log.kinds.main >= limit.fromMain)
      limitedUntil = Date.now() + limit.windowMs;
    if (limitedUntil && Date.now() >= limitedUntil) log.resumedAfterWindowMs ??= Date.now() - limitedUntil;
    if (limitedUntil && Date.now() < limitedUntil) {
      log.rateLimited++;
      log.refusedAt.push(Date.now() - (limitedUntil - limit!.windowMs));
      return rateLimitError(limitedUntil, limit?.retryAfterS ?? 2);
    }
    const window =
      options.windowAboveFirst === undefined || log.firstTokens === undefined
        ? undefined
        : log.firstTokens + options.windowAboveFirst;
    if (window !== undefined && tokens > window) {
      log.tooLong++;
      return apiError(400, 'invalid_request_error', `prompt is too long: ${tokens} tokens > ${window} maximum`);
    }
    return undefined;
  }
  return { handler, log };
}

/** The real API's 429: `retry-after` and the input-token limit's reset time (RFC 3339). */
export function rateLimitError(resetAt: number, retryAfterS: number): FakeReply {
  return apiError(
    429,
    'rate_limit_error',
    'This request would exceed the rate limit for your organization of 30,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.',
    {
      'retry-after': String(retryAfterS),
      'anthropic-ratelimit-input-tokens-limit': '30000',
      'anthropic-ratelimit-input-tokens-remaining': '0',
      'anthropic-ratelimit-input-tokens-reset': new Date(resetAt).toISOString(),
    },
  );
}
