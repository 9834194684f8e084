import { checkAgentInput } from '../../src/shared/input';
import type { CallModelOutcome, PlannedToolUse, Usage } from '../../src/shared/types';
import {
  absorbResponse,
  absorbToolResults,
  beginTurn,
  decideAfterModel,
  fileStatesFor,
  initialLoopState,
  type LoopState,
  type ModelResponse,
  recordFileState,
  toResult,
} from '../../src/workflows/loop';

const usage = (input: number, output: number): Usage => ({ inputTokens: input, outputTokens: output, cacheCreationInputTokens: 1, cacheReadInputTokens: 2 });

function state(overrides: Partial<LoopState> = {}): LoopState {
  const check = checkAgentInput({ prompt: 'do it', workdir: '/repo', maxTurns: 3 });
  if (!check.ok) throw new Error(check.message);
  return {
    ...initialLoopState(check.input, { workdir: '/real/repo', model: 'claude-sonnet-5-5', systemRef: 'sha256:system', prompt: { text: 'do it' } }),
    ...overrides,
  };
}

const readCall: PlannedToolUse = {
  id: 'toolu_1',
  name: 'Read',
  input: { file_path: 'a.ts' },
  plan: { ok: true, concurrencySafe: true, summary: 'Read a.ts', filePath: '/real/repo/a.ts' },
};

function response(overrides: Partial<ModelResponse> = {}): ModelResponse {
  return {
    kind: 'response',
    conversationRef: 'sha256:conversation',
    messageCount: 1,
    assistant: { ref: 'sha256:assistant', chars: 10 },
    stopReason: 'end_turn',
    text: 'All done.',
    toolUses: [],
    usage: usage(100, 20),
    model: 'claude-sonnet-5-5',
    ...overrides,
  };
}

describe('the initial state', () => {
  test('starts with the prompt as the one pending message and nothing sent', () => {
    const initial = state();
    expect(initial).toMatchObject({ turnCount: 0, maxTurns: 3, maxOutputTokens: 8192, conversationRef: null, workdir: '/real/repo' });
    expect(initial.pendingMessages).toEqual([{ role: 'user', kind: 'text', content: { text: 'do it' } }]);
    expect(initial.allowedTools).toEqual(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']);
  });
});

describe('beginTurn', () => {
  test('counts the turn about to start', () => {
    const next = beginTurn(state());
    expect(next).toEqual({ kind: 'call_model', state: expect.objectContaining({ turnCount: 1 }) });
  });
  test('stops with max_turns once maxTurns model calls were made', () => {
    expect(beginTurn(state({ turnCount: 3 }))).toEqual({ kind: 'finish', reason: 'max_turns' });
    expect(beginTurn(state({ turnCount: 2 })).kind).toBe('call_model');
  });
});

describe('decideAfterModel', () => {
  test.each([
    ['end_turn', 'completed'],
    ['stop_sequence', 'completed'],
    ['tool_use', 'completed'], // a tool_use stop without blocks has nothing to run
    ['max_tokens', 'max_output_tokens'],
    ['model_context_window_exceeded', 'max_output_tokens'],
    ['something_new', 'completed'],
  ])('stop_reason %s without tool calls ends with %s', (stopReason, reason) => {
    expect(decideAfterModel(response({ stopReason }))).toMatchObject({ kind: 'finish', reason });
  });

  test('tool_use blocks are run whatever the stop reason says', () => {
    expect(decideAfterModel(response({ stopReason: 'tool_use', toolUses: [readCall] }))).toEqual({ kind: 'run_tools', toolUses: [readCall] });
    expect(decideAfterModel(response({ stopReason: 'end_turn', toolUses: [readCall] }))).toEqual({ kind: 'run_tools', toolUses: [readCall] });
  });

  test('pause_turn continues with the content sent back', () => {
    expect(decideAfterModel(response({ stopReason: 'pause_turn' }))).toEqual({ kind: 'continue', transition: 'pause_turn_continue' });
  });

  test('a refusal is a model_error that says so', () => {
    expect(decideAfterModel(response({ stopReason: 'refusal' }))).toMatchObject({ kind: 'finish', reason: 'model_error', error: expect.stringContaining('refusal') });
  });

  test('prompt too long ends with prompt_too_long and the API message', () => {
    const outcome: CallModelOutcome = { kind: 'prompt_too_long', conversationRef: 'sha256:c', status: 400, message: 'prompt is too long: 5 tokens > 4 maximum' };
    expect(decideAfterModel(outcome)).toEqual({ kind: 'finish', reason: 'prompt_too_long', error: 'prompt is too long: 5 tokens > 4 maximum' });
  });
});

describe('folding outcomes into the state', () => {
  test('a response becomes the conversation; the reply is the next message; usage adds up', () => {
    const first = absorbResponse(state({ turnCount: 1 }), response());
    const second = absorbResponse(first, response({ text: '', usage: usage(50, 5) }));
    expect(second.conversationRef).toBe('sha256:conversation');
    expect(second.pendingMessages).toEqual([{ role: 'assistant', kind: 'assistant', ref: 'sha256:assistant', chars: 10 }]);
    expect(second.usage).toEqual({ inputTokens: 150, outputTokens: 25, cacheCreationInputTokens: 2, cacheReadInputTokens: 4 });
    expect(second.finalText).toBe('All done.'); // a reply without text keeps the last text
  });

  test('tool results follow the assistant message as ONE user message', () => {
    const afterResponse = absorbResponse(state(), response({ toolUses: [readCall] }));
    const results = [{ toolUseId: 'toolu_1', isError: false, content: { text: 'ok' } }];
    const next = absorbToolResults(afterResponse, results);
    expect(next.pendingMessages).toEqual([
      { role: 'assistant', kind: 'assistant', ref: 'sha256:assistant', chars: 10 },
      { role: 'user', kind: 'tool_results', results },
    ]);
    expect(next.lastTransition).toBe('next_turn');
  });

  test('file states are recorded and handed only to the call that targets the file', () => {
    const known = recordFileState(state(), { path: '/real/repo/a.ts', sha256: 'abc' });
    expect(fileStatesFor(known, readCall)).toEqual([{ path: '/real/repo/a.ts', sha256: 'abc' }]);
    expect(fileStatesFor(known, { ...readCall, plan: { ok: true, concurrencySafe: false, summary: 'Bash ls' } })).toEqual([]);
    expect(fileStatesFor(state(), readCall)).toEqual([]);
  });

  test('the result carries reason, turns, final text and usage', () => {
    const final = absorbResponse(state({ turnCount: 2 }), response());
    expect(toResult(final, 'completed')).toEqual({ reason: 'completed', turnCount: 2, finalText: 'All done.', usage: usage(100, 20) });
    expect(toResult(final, 'model_error', 'boom')).toMatchObject({ reason: 'model_error', error: 'boom' });
  });
});
