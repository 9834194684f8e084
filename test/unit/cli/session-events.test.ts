import { SessionEvents } from '../../../src/cli/session-events';
import { liveEventSchema } from '../../../src/shared/live-events';
import { ZERO_USAGE } from '../../../src/shared/conversation';

const at = new Date('2026-11-30T12:00:00.000Z');
const events = () => new SessionEvents('agent-1', () => at);

describe('the --json event stream of a session', () => {
  test('transcript entries become turn_start, tool_start, tool_end, transition and usage, each valid against the exported schema', () => {
    const stream = events();
    const out = [
      ...stream.fromEntry({ type: 'user', turn: 0, text: 'task' }),
      ...stream.fromEntry({
        type: 'assistant',
        turn: 1,
        text: 'Reading.',
        stopReason: 'tool_use',
        usage: { ...ZERO_USAGE, inputTokens: 10, outputTokens: 2 },
      }),
      ...stream.fromEntry({ type: 'tool_call', turn: 1, toolUseId: 'toolu_1', name: 'Read', summary: 'Read a.txt' }),
      ...stream.fromEntry({
        type: 'tool_result',
        turn: 1,
        toolUseId: 'toolu_1',
        name: 'Read',
        isError: false,
        preview: 'alpha',
      }),
      ...stream.fromEntry({ type: 'transition', turn: 1, transition: 'next_turn' }),
    ];
    expect(out.map((event) => [event.type, event.turn])).toEqual([
      ['turn_start', 1],
      ['usage', 1],
      ['tool_start', 1],
      ['tool_end', 1],
      ['transition', 1],
    ]);
    for (const event of out) expect(liveEventSchema.parse(event)).toEqual(event);
    expect(out[0]).toEqual({ type: 'turn_start', workflowId: 'agent-1', turn: 1, at: at.toISOString() });
  });

  test('a message sent with send is a user_message event with its text, in the turn that took it', () => {
    const stream = events();
    stream.fromEntry({ type: 'assistant', turn: 1, text: 'Done.', stopReason: 'end_turn', usage: ZERO_USAGE });
    const out = stream.fromEntry({ type: 'user_message', turn: 2, text: 'Also add a test' });
    expect(out).toEqual([
      { type: 'turn_start', workflowId: 'agent-1', turn: 2, at: at.toISOString() },
      { type: 'user_message', workflowId: 'agent-1', turn: 2, at: at.toISOString(), text: 'Also add a test' },
    ]);
    for (const event of out) expect(liveEventSchema.parse(event)).toEqual(event);
  });

  test("a live event opens its turn once, and tool progress without a turn takes its call's", () => {
    const stream = events();
    stream.fromEntry({ type: 'tool_call', turn: 2, toolUseId: 'toolu_b', name: 'Bash', summary: 'Bash make' });
    const progress = stream.fromLive({
      type: 'tool_progress',
      workflowId: 'agent-1',
      turn: 0,
      at: 'published',
      toolUseId: 'toolu_b',
      name: 'Bash',
      elapsedMs: 2000,
      lastLine: 'ok',
    });
    expect(progress).toEqual([
      {
        type: 'tool_progress',
        workflowId: 'agent-1',
        turn: 2,
        at: at.toISOString(),
        toolUseId: 'toolu_b',
        name: 'Bash',
        elapsedMs: 2000,
        lastLine: 'ok',
      },
    ]);
    const deltas = [0, 1].flatMap((index) =>
      stream.fromLive({
        type: 'text_delta',
        workflowId: 'agent-1',
        turn: 3,
        at: 'x',
        attempt: 1,
        index,
        kind: 'text',
        text: `p${index}`,
      }),
    );
    expect(deltas.map((event) => event.type)).toEqual(['turn_start', 'text_delta', 'text_delta']);
  });

  test('approvals are announced once each; the result closes the stream with the last turn', () => {
    const stream = events();
    const pending = [{ toolUseId: 'toolu_w', name: 'Write', summary: 'Write out.txt', input: {} }];
    expect(stream.fromApprovals(pending, 1).map((event) => event.type)).toEqual(['turn_start', 'approval_needed']);
    expect(stream.fromApprovals(pending, 1)).toEqual([]);
    const result = stream.fromResult({ reason: 'completed', turnCount: 1, finalText: 'Done.', usage: ZERO_USAGE });
    expect(result).toEqual([
      {
        type: 'result',
        workflowId: 'agent-1',
        turn: 1,
        at: at.toISOString(),
        reason: 'completed',
        usage: ZERO_USAGE,
        finalText: 'Done.',
      },
    ]);
    expect(liveEventSchema.parse(stream.fromFailure('boom')[0])).toMatchObject({
      type: 'result',
      reason: 'failed',
      error: 'boom',
    });
  });

  test("a delta arriving after its turn's usage is a late copy: --json never writes it", () => {
    const stream = events();
    stream.fromEntry({ type: 'assistant', turn: 1, text: 'Done.', stopReason: 'end_turn', usage: ZERO_USAGE });
    expect(
      stream.fromLive({
        type: 'text_delta',
        workflowId: 'agent-1',
        turn: 1,
        at: 'x',
        attempt: 1,
        index: 0,
        kind: 'text',
        text: 'Done.',
      }),
    ).toEqual([]);
    expect(
      stream.fromLive({
        type: 'text_delta',
        workflowId: 'agent-1',
        turn: 2,
        at: 'x',
        attempt: 1,
        index: 0,
        kind: 'text',
        text: 'Next',
      }),
    ).toHaveLength(2);
  });

  test('a reply that ended before all its pieces arrived gets the rest as one last piece, before usage', () => {
    const stream = events();
    const piece = (index: number, text: string, kind: 'text' | 'thinking' = 'text') => ({
      type: 'text_delta' as const,
      workflowId: 'agent-1',
      turn: 1,
      at: 'x',
      attempt: 2,
      index,
      kind,
      text,
    });
    stream.fromLive(piece(0, 'hmm', 'thinking'));
    stream.fromLive(piece(1, 'Hello '));
    const out = stream.fromEntry({
      type: 'assistant',
      turn: 1,
      text: 'Hello world.',
      stopReason: 'end_turn',
      usage: ZERO_USAGE,
    });
    expect(out.map((event) => event.type)).toEqual(['text_delta', 'usage']);
    expect(out[0]).toMatchObject({ attempt: 2, index: 2, kind: 'text', text: 'world.' });
    expect(stream.fromLive(piece(2, 'world.'))).toEqual([]);
  });
});
