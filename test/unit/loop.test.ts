import { loopState } from '../support/loop-state';
import type { CallModelOutcome, PlannedToolUse } from '../../src/shared/activity-io';
import type { Usage } from '../../src/shared/conversation';
import { afterCollapse, afterModel, beginTurn, type ModelResponse, RESUME_AFTER_MAX_TOKENS, withoutRecovery } from '../../src/workflows/loop';
import { absorbToolResults, estimateTokens, fileStatesFor, outputLimit, recordFileState, toResult } from '../../src/workflows/loop-state';

const usage = (input: number, output: number): Usage => ({ inputTokens: input, outputTokens: output, cacheCreationInputTokens: 1, cacheReadInputTokens: 2 });

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

const promptTooLong: CallModelOutcome = { kind: 'prompt_too_long', conversationRef: 'sha256:c', status: 400, message: 'prompt is too long: 5 tokens > 4 maximum' };

describe('the initial state', () => {
  test('starts with the prompt as the one pending message, nothing sent, per-turn recovery state clear', () => {
    const initial = loopState();
    expect(initial).toMatchObject({
      turnCount: 0,
      maxTurns: 3,
      maxOutputTokens: 8192,
      conversationRef: null,
      workdir: '/real/repo',
      contextWindowTokens: 200_000,
      contextTokens: 1000,
      maxOutputTokensRecoveryCount: 0,
      hasAttemptedReactiveCompact: false,
      maxOutputTokensOverride: null,
      consecutiveAutocompactFailures: 0,
    });
    expect(initial.pendingMessages).toEqual([{ role: 'user', kind: 'text', content: { text: 'do it' } }]);
    expect(initial.allowedTools).toEqual(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']);
    expect(loopState({}, { contextWindowTokens: 50_000 }).contextWindowTokens).toBe(50_000);
  });
});

describe('beginTurn', () => {
  test('counts the turn about to start, and stops with max_turns after maxTurns model calls', () => {
    expect(beginTurn(loopState())).toEqual({ kind: 'call_model', state: expect.objectContaining({ turnCount: 1 }) });
    expect(beginTurn(loopState({ turnCount: 3 }))).toEqual({ kind: 'finish', reason: 'max_turns' });
    expect(beginTurn(loopState({ turnCount: 2, lastTransition: 'next_turn' })).kind).toBe('call_model');
  });
  test('a recovery retry is not a new turn', () => {
    expect(beginTurn(loopState({ turnCount: 3, lastTransition: 'max_output_tokens_escalate' }))).toEqual({
      kind: 'call_model',
      state: expect.objectContaining({ turnCount: 3 }),
    });
  });
});

describe('afterModel: normal replies', () => {
  test.each([
    ['end_turn', 'completed'],
    ['stop_sequence', 'completed'],
    ['tool_use', 'completed'], // a tool_use stop without blocks has nothing to run
    ['something_new', 'completed'],
  ])('stop_reason %s without tool calls ends with %s', (stopReason, reason) => {
    expect(afterModel(loopState(), response({ stopReason })).step).toMatchObject({ kind: 'finish', reason });
  });

  test('tool_use blocks are run whatever the stop reason says; the reply is the next message', () => {
    const { state, step } = afterModel(loopState(), response({ stopReason: 'end_turn', toolUses: [readCall] }));
    expect(step).toEqual({ kind: 'run_tools', toolUses: [readCall] });
    expect(state.pendingMessages).toEqual([{ role: 'assistant', kind: 'assistant', ref: 'sha256:assistant', chars: 10 }]);
    expect(state.conversationRef).toBe('sha256:conversation');
    expect(state.contextTokens).toBe(103); // input + cache creation + cache read of the request
  });

  test('pause_turn continues; a refusal is a model_error', () => {
    expect(afterModel(loopState(), response({ stopReason: 'pause_turn' })).step).toEqual({ kind: 'call_model', transition: 'pause_turn_continue' });
    expect(afterModel(loopState(), response({ stopReason: 'refusal' })).step).toMatchObject({ kind: 'finish', reason: 'model_error' });
  });

  test('usage adds up; a reply without text keeps the last text', () => {
    const first = afterModel(loopState(), response({ toolUses: [readCall] })).state;
    const second = afterModel(first, response({ text: '', usage: usage(50, 5) })).state;
    expect(second.usage).toEqual({ inputTokens: 150, outputTokens: 25, cacheCreationInputTokens: 2, cacheReadInputTokens: 4 });
    expect(second.finalText).toBe('All done.');
  });
});

describe('afterModel: output cut off (max_tokens)', () => {
  const cut = response({ stopReason: 'max_tokens', text: 'half an ans' });

  test('first: the same request again with 64,000 output tokens, the cut reply withheld', () => {
    const { state, step } = afterModel(loopState(), cut);
    expect(step).toEqual({ kind: 'call_model', transition: 'max_output_tokens_escalate' });
    expect(state.pendingMessages).toEqual([]);
    expect(outputLimit(state)).toBe(64_000);
  });

  test('then up to 3 recoveries appending the cut reply and a resume message, then the run ends', () => {
    let state = afterModel(loopState(), cut).state;
    for (let recovery = 1; recovery <= 3; recovery++) {
      const decision = afterModel({ ...state, lastTransition: 'max_output_tokens_escalate' }, cut);
      expect(decision.step).toEqual({ kind: 'call_model', transition: 'max_output_tokens_recovery' });
      expect(decision.state.maxOutputTokensRecoveryCount).toBe(recovery);
      expect(decision.state.pendingMessages).toEqual([
        { role: 'assistant', kind: 'assistant', ref: 'sha256:assistant', chars: 10 },
        { role: 'user', kind: 'text', content: { text: RESUME_AFTER_MAX_TOKENS } },
      ]);
      state = decision.state;
    }
    expect(afterModel(state, cut)).toMatchObject({ step: { kind: 'finish', reason: 'max_output_tokens' }, state: { finalText: 'half an ans' } });
  });

  test('model_context_window_exceeded counts as cut off; a model whose max is already reached skips escalation', () => {
    expect(afterModel(loopState(), response({ stopReason: 'model_context_window_exceeded' })).step).toMatchObject({ transition: 'max_output_tokens_escalate' });
    expect(afterModel(loopState({ maxOutputTokens: 64_000 }), cut).step).toMatchObject({ transition: 'max_output_tokens_recovery' });
  });

  test('a normal turn resets the per-turn budgets', () => {
    const recovering = loopState({ maxOutputTokensRecoveryCount: 2, maxOutputTokensOverride: 64_000, hasAttemptedReactiveCompact: true });
    expect(absorbToolResults(recovering, [])).toMatchObject({
      maxOutputTokensRecoveryCount: 0,
      maxOutputTokensOverride: null,
      hasAttemptedReactiveCompact: false,
      lastTransition: 'next_turn',
    });
  });
});

describe('afterModel: prompt too long', () => {
  test('collapse first, never twice in a row; then one reactive compaction; then prompt_too_long', () => {
    const first = afterModel(loopState(), promptTooLong);
    expect(first.step).toEqual({ kind: 'edit_context', edit: 'collapse', transition: 'collapse_drain_retry' });
    const second = afterModel({ ...first.state, lastTransition: 'collapse_drain_retry' }, promptTooLong);
    expect(second.step).toEqual({ kind: 'compact', transition: 'reactive_compact_retry' });
    expect(second.state.hasAttemptedReactiveCompact).toBe(true);
    const third = afterModel({ ...second.state, lastTransition: 'reactive_compact_retry' }, promptTooLong);
    expect(third.step).toEqual({ kind: 'finish', reason: 'prompt_too_long', error: 'prompt is too long: 5 tokens > 4 maximum' });
  });

  test('a collapse with nothing to archive goes straight on to the reactive compaction', () => {
    expect(afterCollapse(loopState(), false, 'too long').step).toEqual({ kind: 'compact', transition: 'reactive_compact_retry' });
    expect(afterCollapse(loopState(), true, 'too long').step).toEqual({ kind: 'call_model', transition: 'collapse_drain_retry' });
    expect(afterCollapse(loopState({ hasAttemptedReactiveCompact: true }), false, 'too long').step).toMatchObject({ reason: 'prompt_too_long' });
  });
});

describe('afterModel: media and overload', () => {
  test('media too large: strip once, then image_error', () => {
    const media: CallModelOutcome = { kind: 'media_too_large', conversationRef: 'sha256:c', message: 'image exceeds 5 MB maximum' };
    const first = afterModel(loopState(), media);
    expect(first.step).toEqual({ kind: 'edit_context', edit: 'media_strip', transition: 'media_strip_retry' });
    expect(afterModel(first.state, media).step).toEqual({ kind: 'finish', reason: 'image_error', error: 'image exceeds 5 MB maximum' });
  });

  test('overloaded: switch to the fallback model once, else model_error', () => {
    const overloaded: CallModelOutcome = { kind: 'overloaded', conversationRef: 'sha256:c', attempts: 3, message: 'Overloaded' };
    const withFallback = loopState({}, { fallbackModel: 'claude-haiku-5-5' });
    const switched = afterModel(withFallback, overloaded);
    expect(switched.step).toEqual({ kind: 'call_model', transition: 'model_fallback_retry' });
    expect(switched.state.model).toBe('claude-haiku-5-5');
    expect(afterModel(switched.state, overloaded).step).toMatchObject({ kind: 'finish', reason: 'model_error' });
    expect(afterModel(loopState(), overloaded).step).toMatchObject({ kind: 'finish', reason: 'model_error' });
  });
});

describe('bookkeeping', () => {
  test('tool results follow the assistant message as ONE user message', () => {
    const afterResponse = afterModel(loopState(), response({ toolUses: [readCall] })).state;
    const results = [{ toolUseId: 'toolu_1', isError: false, content: { text: 'ok' } }];
    expect(absorbToolResults(afterResponse, results).pendingMessages).toEqual([
      { role: 'assistant', kind: 'assistant', ref: 'sha256:assistant', chars: 10 },
      { role: 'user', kind: 'tool_results', results },
    ]);
  });

  test('file states are recorded, read files remembered newest last, and handed only to the call that targets the file', () => {
    let known = recordFileState(loopState(), { path: '/real/repo/a.ts', sha256: 'abc' }, true);
    known = recordFileState(known, { path: '/real/repo/b.ts', sha256: 'def' }, true);
    known = recordFileState(known, { path: '/real/repo/a.ts', sha256: 'abc' }, true);
    known = recordFileState(known, { path: '/real/repo/c.ts', sha256: '123' }, false);
    expect(known.recentFiles).toEqual(['/real/repo/b.ts', '/real/repo/a.ts']);
    expect(fileStatesFor(known, readCall)).toEqual([{ path: '/real/repo/a.ts', sha256: 'abc' }]);
    expect(fileStatesFor(known, { ...readCall, plan: { ok: true, concurrencySafe: false, summary: 'Bash ls' } })).toEqual([]);
    expect(fileStatesFor(loopState(), readCall)).toEqual([]);
  });

  test('the estimate is the last real count plus chars/4 of what was added since', () => {
    const state = loopState({ contextTokens: 5000, pendingMessages: [{ role: 'user', kind: 'text', content: { ref: 'sha256:x', chars: 4000, preview: '' } }] });
    expect(estimateTokens(state)).toBe(6000);
  });

  test('the result carries reason, turns, final text and usage', () => {
    const final = afterModel(loopState({ turnCount: 2 }), response()).state;
    expect(toResult(final, 'completed')).toEqual({ reason: 'completed', turnCount: 2, finalText: 'All done.', usage: usage(100, 20) });
    expect(toResult(final, 'model_error', 'boom')).toMatchObject({ reason: 'model_error', error: 'boom' });
  });
});

describe('sessions recorded before the recovery layers', () => {
  test('end where a layer would now recover', () => {
    expect(withoutRecovery({ kind: 'edit_context', edit: 'collapse', transition: 'collapse_drain_retry' }, promptTooLong)).toEqual({
      kind: 'finish',
      reason: 'prompt_too_long',
      error: promptTooLong.kind === 'prompt_too_long' ? promptTooLong.message : '',
    });
    expect(withoutRecovery({ kind: 'call_model', transition: 'max_output_tokens_escalate' }, response({ stopReason: 'max_tokens' }))).toEqual({
      kind: 'finish',
      reason: 'max_output_tokens',
    });
    const pause = { kind: 'call_model', transition: 'pause_turn_continue' } as const;
    expect(withoutRecovery(pause, response({ stopReason: 'pause_turn' }))).toBe(pause);
    expect(withoutRecovery({ kind: 'run_tools', toolUses: [readCall] }, response()).kind).toBe('run_tools');
  });
});
