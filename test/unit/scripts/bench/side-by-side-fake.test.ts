import type { ApiBlock, FakeReply, RecordedRequest } from '../../../support/fake-anthropic';
import { promptSize, requestKind, type ScriptStep, scriptedModel } from '../../../../scripts/bench/side-by-side-fake';

type Body = RecordedRequest['body'];
const tools = [
  { name: 'Bash', input_schema: {} },
  { name: 'Read', input_schema: {} },
];
const steps: ScriptStep[] = [
  { name: 'Read', input: { file_path: '/r/a.txt' } },
  { name: 'Bash', input: { command: 'sleep 5; echo bench-ok' }, expect: 'bench-ok' },
];

const body = (messages: Body['messages'], extra: Partial<Body> = {}): Body => ({
  model: 'm',
  max_tokens: 100,
  tools,
  messages,
  ...extra,
});
const request = (value: Body): RecordedRequest => ({ headers: {}, body: value });

/** The conversation after the given tool calls and their results. */
function after(...rounds: { id: string; result: string; isError?: boolean }[]): Body['messages'] {
  return [
    { role: 'user', content: 'task' },
    ...rounds.flatMap(({ id, result, isError }) => [
      { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: {} } as ApiBlock] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result, is_error: isError }] },
    ]),
  ];
}

function toolCall(answer: FakeReply | Promise<FakeReply>): { name: string; id: string } | undefined {
  const reply = answer as FakeReply;
  if (reply.kind !== 'message') return undefined;
  const block = reply.content.find((candidate) => candidate.type === 'tool_use');
  return block?.type === 'tool_use' ? { name: block.name, id: block.id! } : undefined;
}

describe("the side-by-side benchmark's scripted model", () => {
  it('tells the agent loop, a compaction and a side request apart, whichever agent sends them', () => {
    expect(requestKind(body([{ role: 'user', content: 'hi' }]))).toBe('main');
    expect(requestKind(body([{ role: 'user', content: 'hi' }], { tools: undefined }))).toBe('side');
    const claudeCode = [{ type: 'text', text: 'CRITICAL: … create a detailed summary of the conversation so far' }];
    expect(requestKind(body([{ role: 'user', content: claudeCode }]))).toBe('compaction');
    expect(requestKind(body([{ role: 'user', content: 'x' }], { tool_choice: { type: 'none' } }))).toBe('compaction');
  });

  it("counts Claude Code's system-role messages as system prompt", () => {
    const size = promptSize(
      body(
        [
          { role: 'user', content: 'hi' },
          { role: 'system', content: 'env' },
        ],
        { system: 'abc' },
      ),
    );
    expect(size.systemChars).toBe(
      JSON.stringify('abc').length + JSON.stringify([{ role: 'system', content: 'env' }]).length,
    );
    expect(size.toolsChars).toBe(JSON.stringify(tools).length);
  });

  it('asks for each step until its result is there, a lost command again, then answers done', () => {
    const { handler, log } = scriptedModel(steps);
    const read = toolCall(handler(request(body(after()))))!;
    expect(read.name).toBe('Read');
    const bash = toolCall(handler(request(body(after({ id: read.id, result: 'a' })))))!;
    expect(bash.name).toBe('Bash');
    const lost = after({ id: read.id, result: 'a' }, { id: bash.id, result: 'stopped, output lost', isError: true });
    expect(toolCall(handler(request(body(lost))))!.name).toBe('Bash');
    expect(log.asked).toEqual([1, 2]);
    const finished = handler(request(body(after({ id: bash.id, result: 'bench-ok' })))) as FakeReply;
    expect(finished).toMatchObject({ kind: 'message', content: [{ type: 'text', text: 'done' }] });
    expect(log.finished).toBe(true);
  });

  it('remembers results a compaction request carried', () => {
    const { handler } = scriptedModel(steps);
    const read = toolCall(handler(request(body(after()))))!;
    handler(request(body(after({ id: read.id, result: 'a' }), { tool_choice: { type: 'none' } })));
    expect(toolCall(handler(request(body([{ role: 'user', content: 'summary' }]))))!.name).toBe('Bash');
  });

  it('refuses every request of a rate-limit window with the real 429 and its reset time', () => {
    jest.useFakeTimers({ now: new Date('2026-12-02T12:00:00Z') });
    try {
      const { handler, log } = scriptedModel(steps, { rateLimit: { windowMs: 75_000, fromMain: 1 } });
      expect(toolCall(handler(request(body(after()))))).toBeDefined();
      expect(handler(request(body(after())))).toMatchObject({
        kind: 'error',
        status: 429,
        type: 'rate_limit_error',
        headers: { 'retry-after': '2', 'anthropic-ratelimit-input-tokens-reset': '2026-12-02T12:01:15.000Z' },
      });
      jest.setSystemTime(new Date('2026-12-02T12:01:15Z'));
      expect(toolCall(handler(request(body(after()))))).toBeDefined();
      expect(log.rateLimited).toBe(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('answers the real 400 past a window measured from the first request', () => {
    const { handler, log } = scriptedModel(steps, { windowAboveFirst: 10 });
    handler(request(body(after())));
    const big = body([{ role: 'user', content: 'x'.repeat(400) }]);
    const refused = handler(request(big)) as FakeReply;
    expect(refused).toMatchObject({ kind: 'error', status: 400, type: 'invalid_request_error' });
    expect(refused.kind === 'error' && refused.message).toMatch(/^prompt is too long: \d+ tokens > \d+ maximum$/);
    expect(log.tooLong).toBe(1);
  });
});
