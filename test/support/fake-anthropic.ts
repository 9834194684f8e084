/**
 * A fake Anthropic Messages API speaking the real wire format, so the real @anthropic-ai/sdk
 * runs unmocked against it (through ANTHROPIC_BASE_URL).
 *
 * - Streaming replies are SSE: message_start, content_block_start / content_block_delta
 *   (text_delta, input_json_delta in several chunks) / content_block_stop, message_delta,
 *   message_stop, with pings in between.
 * - Errors are `{ type: "error", error: { type, message } }` with the real status codes, or an
 *   `error` event in the middle of a 200 stream.
 * - Requests are checked as the real API checks them where our code could get it wrong: a
 *   `tool_use` without its `tool_result` in the next message is a 400, as is a missing API key.
 *
 * Tests script it with a handler `(request) => reply`; `byTurn` answers by the number of
 * assistant messages in the request, so a retried request (after a crash) gets the same reply.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CacheUsage, PromptCache } from './prompt-cache';

export type FakeBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: unknown; id?: string };

export type FakeReply =
  /** `deltaIntervalMs`: stream the text in `pieces` deltas (default 3) that far apart, as a slow model does. */
  | {
      kind: 'message';
      content: FakeBlock[];
      stopReason?: string;
      outputTokens?: number;
      deltaIntervalMs?: number;
      pieces?: number;
    }
  | { kind: 'error'; status: number; type: string; message: string; headers?: Record<string, string> }
  /** A 200 stream that breaks with an `error` event after the first block. */
  | { kind: 'stream_error'; type: string; message: string; partial?: string; deltaIntervalMs?: number; pieces?: number }
  /** Holds the request open until `release()` resolves (for crash tests). */
  | { kind: 'hold'; release: Promise<FakeReply> };

export interface RecordedRequest {
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    max_tokens: number;
    system?: unknown;
    tools?: { name: string; input_schema: unknown }[];
    messages: { role: string; content: string | ApiBlock[] }[];
    stream?: boolean;
    tool_choice?: { type: string };
  };
}

export interface ApiBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

export type FakeHandler = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

export const text = (value: string): FakeBlock => ({ type: 'text', text: value });
export const toolUse = (name: string, input: unknown, id?: string): FakeBlock => ({
  type: 'tool_use',
  name,
  input,
  id,
});
export const reply = (content: FakeBlock[], stopReason?: string): FakeReply => ({
  kind: 'message',
  content,
  stopReason: stopReason ?? (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
});
export const apiError = (
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): FakeReply => ({
  kind: 'error',
  status,
  type,
  message,
  headers,
});

/** Number of assistant messages in the request: 0 for the first turn, 1 for the second… */
export function turnOf(request: RecordedRequest): number {
  return request.body.messages.filter((message) => message.role === 'assistant').length;
}

/** The text of the request's first message: what a session (or a sub-agent, its prompt) was asked. */
export function taskOf(request: RecordedRequest): string {
  const first = request.body.messages[0]!;
  return typeof first.content === 'string' ? first.content : first.content.map((block) => block.text ?? '').join('');
}

/** The request of a turn (the last, if the call was retried: a retry sends the same conversation). */
export function requestOfTurn(requests: RecordedRequest[], turn: number): RecordedRequest | undefined {
  return requests.filter((request) => turnOf(request) === turn).at(-1);
}

/** Replies by turn; retries of a turn get the same reply. Past the script: a plain end_turn. */
export function byTurn(replies: (FakeReply | ((request: RecordedRequest) => FakeReply))[]): FakeHandler {
  return (request) => {
    const entry = replies[turnOf(request)];
    if (!entry) return reply([text('(script ended)')]);
    return typeof entry === 'function' ? entry(request) : entry;
  };
}

/** Replies in order of arrival (each request consumes one entry, retries included). */
export function inOrder(replies: FakeReply[]): FakeHandler {
  let next = 0;
  return () => replies[next++] ?? apiError(500, 'api_error', 'fake server: script exhausted');
}

/** A compaction request: the model is asked for a summary and may not call tools (or has none declared). */
export function isCompaction(request: RecordedRequest): boolean {
  return (
    (request.body.tool_choice?.type === 'none' || !request.body.tools?.length) &&
    JSON.stringify(request.body.messages).includes('write a detailed summary')
  );
}

/** All text of a request's messages (text blocks and tool results), for assertions. */
export function requestText(request: RecordedRequest): string {
  return request.body.messages
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content.map((block) => block.text ?? toolResultText(block)).join('\n'),
    )
    .join('\n');
}

/** The `tool_result` blocks of the last user message of a request. */
export function lastToolResults(request: RecordedRequest): ApiBlock[] {
  const last = request.body.messages[request.body.messages.length - 1];
  if (!last || typeof last.content === 'string') return [];
  return last.content.filter((block) => block.type === 'tool_result');
}

export function toolResultText(block: ApiBlock): string {
  if (typeof block.content === 'string') return block.content;
  if (Array.isArray(block.content)) return block.content.map((part: { text?: string }) => part.text ?? '').join('');
  return '';
}

/** The small model's tool-batch summaries are answered by the fake itself, outside the script. */
export function isToolSummary(body: RecordedRequest['body']): boolean {
  return JSON.stringify(body.system ?? '').includes('You label the steps of a coding agent');
}

export class FakeAnthropicServer {
  readonly requests: RecordedRequest[] = [];
  readonly summaryRequests: RecordedRequest[] = [];
  /** Images over this many bytes of base64 are refused, as the real API refuses those over 5 MB. */
  maxImageBytes = 5 * 1024 * 1024;
  /** When set, usage reports prompt-cache reads and writes as the real API would (off: all input). */
  promptCache: PromptCache | undefined;
  /**
   * When set, the server's real context window: a request whose input (the fake's count,
   * `estimateInputTokens`) is larger is refused as the real API refuses it (`windowRefusal`).
   */
  contextWindowTokens: number | undefined;
  /** Every text delta streamed, in order, with the time it was sent (latency benchmarks). */
  readonly sentDeltas: SentDelta[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  /** Issue 26: when set, requests in its window are refused with 429 and rate-limit headers. */
  rateLimit: RateLimitWindow | undefined;

  private constructor(
    private readonly server: Server,
    public handler: FakeHandler,
  ) {}

  static async start(handler: FakeHandler = byTurn([])): Promise<FakeAnthropicServer> {
    const server = createServer();
    const fake = new FakeAnthropicServer(server, handler);
    server.on('request', (request, response) => {
      fake.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `count` requests (in all) have arrived. */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** The real API's check of image sizes, wherever an image block is (tool results included). */
  private oversizedImage(body: RecordedRequest['body']): string | undefined {
    for (const [index, message] of body.messages.entries()) {
      if (typeof message.content === 'string') continue;
      const blocks = message.content.flatMap((block) =>
        Array.isArray(block.content) ? [block, ...(block.content as ApiBlock[])] : [block],
      );
      for (const block of blocks) {
        const data = (block as { source?: { data?: string } }).source?.data;
        if (block.type === 'image' && data && data.length > this.maxImageBytes) {
          const limit =
            this.maxImageBytes % (1024 * 1024) === 0
              ? `${this.maxImageBytes / (1024 * 1024)} MB`
              : `${this.maxImageBytes} bytes`;
          return `messages.${index}.content: image exceeds ${limit} maximum`;
        }
      }
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || !request.url?.startsWith('/v1/messages')) {
      return sendError(response, 404, 'not_found_error', `Not found: ${request.method} ${request.url}`);
    }
    let body: RecordedRequest['body'];
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return sendError(response, 400, 'invalid_request_error', 'Request body is not valid JSON');
    }
    const recorded: RecordedRequest = { headers: request.headers, body };
    if (isToolSummary(body)) {
      this.summaryRequests.push(recorded);
      const summary = `Summary ${this.summaryRequests.length}: the agent looked at files.`;
      // Like the real API: a streamed answer when the request asks for one.
      if (body.stream)
        return streamReply(response, body, {
          kind: 'message',
          content: [{ type: 'text', text: summary }],
          outputTokens: 10,
        });
      return sendJson(response, { ...messageJson(body, [{ type: 'text', text: summary }]) });
    }
    this.requests.push(recorded);
    this.waiters = this.waiters.filter((waiter) =>
      this.requests.length >= waiter.count ? (waiter.resolve(), false) : true,
    );

    if (!request.headers['x-api-key'] && !request.headers.authorization) {
      return sendError(response, 401, 'authentication_error', 'x-api-key header is required');
    }
    const invalid = validateRequest(body) ?? this.oversizedImage(body);
    if (invalid) return sendError(response, 400, 'invalid_request_error', invalid);
    const overflow = windowRefusal(body, this.contextWindowTokens);
    if (overflow) return sendError(response, 400, 'invalid_request_error', overflow);

    const refusal = this.rateLimit?.refusal(Date.now());
    if (refusal) return sendError(response, 429, 'rate_limit_error', refusal.message, refusal.headers);
    let answer = await this.handler(recorded);
    while (answer.kind === 'hold') answer = await answer.release;
    if (answer.kind === 'error') return sendError(response, answer.status, answer.type, answer.message, answer.headers);
    await streamReply(response, body, answer, this.promptCache?.use(body), this.sentDeltas);
  }
}

/** The checks of the real API that our loop could violate. */
function validateRequest(body: RecordedRequest['body']): string | undefined {
  if (typeof body.model !== 'string' || !body.model) return 'model: Field required';
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  if (body.messages[0]!.role !== 'user') return 'messages: first message must use the "user" role';
  for (let index = 0; index < body.messages.length; index++) {
    const message = body.messages[index]!;
    if (index > 0 && body.messages[index - 1]!.role === message.role) {
      return `messages: roles must alternate between "user" and "assistant" (messages.${index})`;
    }
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    const toolUseIds = message.content.filter((block) => block.type === 'tool_use').map((block) => block.id);
    if (toolUseIds.length === 0) continue;
    const next = body.messages[index + 1];
    const resultIds = new Set(
      next && typeof next.content !== 'string'
        ? next.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id)
        : [],
    );
    const missing = toolUseIds.filter((id) => !resultIds.has(id));
    if (missing.length) {
      return `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
  }
  return undefined;
}

function messageJson(body: RecordedRequest['body'], content: { type: 'text'; text: string }[]) {
  return {
    id: `msg_fake_${randomBytes(8).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: estimateInputTokens(body),
      output_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function sendJson(response: ServerResponse, value: unknown): void {
  response.writeHead(200, {
    'content-type': 'application/json',
    'request-id': `req_fake_${randomBytes(6).toString('hex')}`,
  });
  response.end(JSON.stringify(value));
}

function sendError(
  response: ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'request-id': `req_fake_${randomBytes(6).toString('hex')}`,
    ...headers,
  });
  response.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

/** The real API's answer to a request over the window: "prompt is too long: N tokens > M maximum". */
export function windowRefusal(body: RecordedRequest['body'], windowTokens: number | undefined): string | undefined {
  if (windowTokens === undefined) return undefined;
  const tokens = estimateInputTokens(body);
  return tokens > windowTokens ? `prompt is too long: ${tokens} tokens > ${windowTokens} maximum` : undefined;
}

/** The fake's token count of a request (what its usage and a real-window check go by). */
export function estimateInputTokens(body: RecordedRequest['body']): number {
  return Math.ceil(JSON.stringify({ system: body.system, tools: body.tools, messages: body.messages }).length / 4);
}

/** A text delta the fake sent, and when (Date.now()). */
export interface SentDelta {
  text: string;
  at: number;
}

async function streamReply(
  response: ServerResponse,
  body: RecordedRequest['body'],
  answer: Extract<FakeReply, { kind: 'message' | 'stream_error' }>,
  cache?: CacheUsage,
  sentDeltas?: SentDelta[],
): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': `req_fake_${randomBytes(6).toString('hex')}`,
  });
  const send = (event: string, data: unknown) => response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const inputTokens = estimateInputTokens(body);
  send('message_start', {
    type: 'message_start',
    message: {
      id: `msg_fake_${randomBytes(8).toString('hex')}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: cache
        ? {
            input_tokens: cache.inputTokens,
            output_tokens: 1,
            cache_creation_input_tokens: cache.cacheCreationInputTokens,
            cache_read_input_tokens: cache.cacheReadInputTokens,
          }
        : { input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  });
  send('ping', { type: 'ping' });
  const content =
    answer.kind === 'message' ? answer.content : [{ type: 'text' as const, text: answer.partial ?? 'partial' }];
  let outputChars = 0;
  for (const [index, block] of content.entries()) {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of split(block.text, answer.pieces ?? 3)) {
        if (answer.deltaIntervalMs) await new Promise((resolve) => setTimeout(resolve, answer.deltaIntervalMs));
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
        sentDeltas?.push({ text: piece, at: Date.now() });
      }
      outputChars += block.text.length;
    } else {
      const id = block.id ?? `toolu_fake_${randomBytes(10).toString('hex')}`;
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id, name: block.name, input: {} },
      });
      const json = JSON.stringify(block.input);
      for (const piece of split(json, 3)) {
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        });
      }
      outputChars += json.length;
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  }
  if (answer.kind === 'stream_error') {
    send('error', { type: 'error', error: { type: answer.type, message: answer.message } });
    response.end();
    return;
  }
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: answer.stopReason ?? 'end_turn', stop_sequence: null },
    usage: { output_tokens: answer.outputTokens ?? Math.max(1, Math.ceil(outputChars / 4)) },
  });
  send('message_stop', { type: 'message_stop' });
  response.end();
}

function split(value: string, parts: number): string[] {
  if (value.length < parts) return [value];
  const size = Math.ceil(value.length / parts);
  const pieces: string[] = [];
  for (let start = 0; start < value.length; start += size) pieces.push(value.slice(start, start + size));
  return pieces;
}

/** A rate-limit window of the fake (issue 26): `durationMs` of 429s, opened after `startAfter` answered requests. */
export interface RateLimitWindowOptions {
  durationMs: number;
  /** Requests answered before the window opens (default 0: the first request opens it). */
  startAfter?: number;
  /** The `retry-after` header, in seconds (default 2, as the real API often says). */
  retryAfterSeconds?: number;
  /** The exhausted limit whose `-reset` header names the window's end (default `input-tokens`). */
  limit?: 'requests' | 'tokens' | 'input-tokens' | 'output-tokens';
}

/**
 * Refuses every request in its window with the real API's 429 `rate_limit_error`: `retry-after`,
 * the exhausted limit's `anthropic-ratelimit-<limit>-remaining: 0` and `-reset` (RFC 3339, the
 * window's end rounded up to the second, as the API's are), and another limit not exhausted whose
 * reset is sooner (a client must wait for the exhausted one).
 */
export class RateLimitWindow {
  /** When each refused request arrived (ms since the epoch). */
  readonly refusedAt: number[] = [];
  answered = 0;
  windowEnd: number | undefined;
  private opened: (() => void) | undefined;
  /** Resolves at the window's first refusal. */
  readonly firstRefusal = new Promise<void>((resolve) => (this.opened = resolve));

  constructor(private readonly options: RateLimitWindowOptions) {}

  get refused(): number {
    return this.refusedAt.length;
  }

  refusal(now: number): { message: string; headers: Record<string, string> } | undefined {
    if (this.windowEnd === undefined && this.answered >= (this.options.startAfter ?? 0)) {
      this.windowEnd = now + this.options.durationMs;
    }
    if (this.windowEnd === undefined || now >= this.windowEnd) {
      this.answered++;
      return undefined;
    }
    this.refusedAt.push(now);
    this.opened?.();
    const limit = this.options.limit ?? 'input-tokens';
    const reset = new Date(Math.ceil(this.windowEnd / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const other = limit === 'requests' ? 'output-tokens' : 'requests';
    return {
      message: `This request would exceed the rate limit for your organization of 40,000 ${limit} per minute.`,
      headers: {
        'retry-after': String(this.options.retryAfterSeconds ?? 2),
        [`anthropic-ratelimit-${limit}-limit`]: '40000',
        [`anthropic-ratelimit-${limit}-remaining`]: '0',
        [`anthropic-ratelimit-${limit}-reset`]: reset,
        [`anthropic-ratelimit-${other}-limit`]: '4000',
        [`anthropic-ratelimit-${other}-remaining`]: '3999',
        [`anthropic-ratelimit-${other}-reset`]: new Date(now + 1000).toISOString(),
      },
    };
  }
}
