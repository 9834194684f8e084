import {
  uncountTurn,
  afterCollapse,
  afterMediaStrip,
  afterModel,
  afterReactiveCompact,
  afterStop,
  beginTurn,
  RESUME_AFTER_MAX_TOKENS,
  shouldContinueAsNew,
  withoutRecovery,
} from '../../../../src/workflows/core/loop';
import type { CallModelOutcome } from '../../../../src/shared/activity-io';
import { absorbToolResults, outputLimit } from '../../../../src/workflows/core/loop-state';
import { loopState } from '../../../support/loop-state';
import { promptTooLong, readCall, response, usage } from '../../../support/model-outcomes';

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
    expect(state.pendingMessages).toEqual([
      { role: 'assistant', kind: 'assistant', ref: 'sha256:assistant', chars: 10 },
    ]);
    expect(state.conversationRef).toBe('sha256:conversation');
    expect(state.contextTokens).toBe(103); // input + cache creation + cache read of the request
  });

  test('pause_turn continues; a refusal is a model_error', () => {
    expect(afterModel(loopState(), response({ stopReason: 'pause_turn' })).step).toEqual({
      kind: 'call_model',
      transition: 'pause_turn_continue',
    });
    expect(afterModel(loopState(), response({ stopReason: 'refusal' })).step).toMatchObject({
      kind: 'finish',
      reason: 'model_error',
    });
  });

  test('usage adds up; a reply without text keeps the last text', () => {
    const first = afterModel(loopState(), response({ toolUses: [readCall] })).state;
    const second = afterModel(first, response({ text: '', usage: usage(50, 5) })).state;
    expect(second.usage).toEqual({
      inputTokens: 150,
      outputTokens: 25,
      cacheCreationInputTokens: 2,
      cacheReadInputTokens: 4,
    });
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
    expect(afterModel(state, cut)).toMatchObject({
      step: { kind: 'finish', reason: 'max_output_tokens' },
      state: { finalText: 'half an ans' },
    });
  });

  test('model_context_window_exceeded counts as cut off; a model whose max is already reached skips escalation', () => {
    expect(afterModel(loopState(), response({ stopReason: 'model_context_window_exceeded' })).step).toMatchObject({
      transition: 'max_output_tokens_escalate',
    });
    expect(afterModel(loopState({ maxOutputTokens: 64_000 }), cut).step).toMatchObject({
      transition: 'max_output_tokens_recovery',
    });
  });

  test('a normal turn resets the per-turn budgets', () => {
    const recovering = loopState({
      maxOutputTokensRecoveryCount: 2,
      maxOutputTokensOverride: 64_000,
      hasAttemptedReactiveCompact: true,
    });
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
    expect(third.step).toEqual({
      kind: 'finish',
      reason: 'prompt_too_long',
      error: 'prompt is too long: 5 tokens > 4 maximum',
    });
  });

  test('the window a refusal names is learned, and kept as learned with patch compaction-fits', () => {
    const refused: CallModelOutcome = {
      ...promptTooLong,
      message: 'prompt is too long: 4442 tokens > 4400 maximum',
    } as CallModelOutcome;
    expect(afterModel(loopState(), refused).state.contextWindowTokens).toBe(200_000); // flag off: as recorded
    const learned = afterModel(loopState(), refused, { learnWindow: true }).state;
    expect(learned).toMatchObject({ contextWindowTokens: 4_400 });
    expect(learned.learnedContextWindow).toBeUndefined();
    const kept = afterModel(loopState(), refused, { learnWindow: true, keepLearnedWindow: true }).state;
    expect(kept).toMatchObject({ contextWindowTokens: 4_400, learnedContextWindow: 4_400 });
    // A larger maximum later teaches nothing.
    const later = { ...refused, message: 'prompt is too long: 9000 tokens > 8000 maximum' } as CallModelOutcome;
    expect(afterModel(kept, later, { learnWindow: true, keepLearnedWindow: true }).state).toMatchObject({
      contextWindowTokens: 4_400,
      learnedContextWindow: 4_400,
    });
  });

  test("a learned window keeps room for the input: a turn's max_tokens is at most a quarter of it", () => {
    expect(outputLimit(loopState({ maxOutputTokens: 8_192 }))).toBe(8_192);
    expect(outputLimit(loopState({ maxOutputTokens: 8_192, learnedContextWindow: 4_400 }))).toBe(1_100);
    expect(outputLimit(loopState({ maxOutputTokens: 8_192, learnedContextWindow: 100_000 }))).toBe(8_192);
  });

  test('a collapse with nothing to archive goes straight on to the reactive compaction', () => {
    expect(afterCollapse(loopState(), false, 'too long').step).toEqual({
      kind: 'compact',
      transition: 'reactive_compact_retry',
    });
    expect(afterCollapse(loopState(), true, 'too long').step).toEqual({
      kind: 'call_model',
      transition: 'collapse_drain_retry',
    });
    expect(afterCollapse(loopState({ hasAttemptedReactiveCompact: true }), false, 'too long').step).toMatchObject({
      reason: 'prompt_too_long',
    });
  });
});

describe('afterModel: media and overload', () => {
  test('media too large: strip once, then image_error', () => {
    const media: CallModelOutcome = {
      kind: 'media_too_large',
      conversationRef: 'sha256:c',
      message: 'image exceeds 5 MB maximum',
    };
    const first = afterModel(loopState(), media);
    expect(first.step).toEqual({ kind: 'edit_context', edit: 'media_strip', transition: 'media_strip_retry' });
    expect(afterModel(first.state, media).step).toEqual({
      kind: 'finish',
      reason: 'image_error',
      error: 'image exceeds 5 MB maximum',
    });
  });

  test('overloaded: switch to the fallback model once, else model_error', () => {
    const overloaded: CallModelOutcome = {
      kind: 'overloaded',
      conversationRef: 'sha256:c',
      attempts: 3,
      message: 'Overloaded',
    };
    const withFallback = loopState({}, { fallbackModel: 'claude-haiku-5-5' });
    const switched = afterModel(withFallback, overloaded);
    expect(switched.step).toEqual({ kind: 'call_model', transition: 'model_fallback_retry' });
    expect(switched.state.model).toBe('claude-haiku-5-5');
    expect(afterModel(switched.state, overloaded).step).toMatchObject({ kind: 'finish', reason: 'model_error' });
    expect(afterModel(loopState(), overloaded).step).toMatchObject({ kind: 'finish', reason: 'model_error' });
  });
});

describe('sessions recorded before the recovery layers', () => {
  test('end where a layer would now recover', () => {
    expect(
      withoutRecovery({ kind: 'edit_context', edit: 'collapse', transition: 'collapse_drain_retry' }, promptTooLong),
    ).toEqual({
      kind: 'finish',
      reason: 'prompt_too_long',
      error: promptTooLong.kind === 'prompt_too_long' ? promptTooLong.message : '',
    });
    expect(
      withoutRecovery(
        { kind: 'call_model', transition: 'max_output_tokens_escalate' },
        response({ stopReason: 'max_tokens' }),
      ),
    ).toEqual({
      kind: 'finish',
      reason: 'max_output_tokens',
    });
    const pause = { kind: 'call_model', transition: 'pause_turn_continue' } as const;
    expect(withoutRecovery(pause, response({ stopReason: 'pause_turn' }))).toBe(pause);
    expect(withoutRecovery({ kind: 'run_tools', toolUses: [readCall] }, response()).kind).toBe('run_tools');
  });
});

describe('after a recovery step', () => {
  test('media strip: retry when media went, else the image error stands', () => {
    expect(afterMediaStrip(true, 'image exceeds 5 MB maximum')).toEqual({
      kind: 'call_model',
      transition: 'media_strip_retry',
    });
    expect(afterMediaStrip(false, 'image exceeds 5 MB maximum')).toEqual({
      kind: 'finish',
      reason: 'image_error',
      error: 'image exceeds 5 MB maximum',
    });
  });

  test('reactive compaction: retry with the summary, or prompt_too_long saying why compaction failed', () => {
    expect(afterReactiveCompact({ ok: true }, 'too long')).toEqual({
      kind: 'call_model',
      transition: 'reactive_compact_retry',
    });
    expect(afterReactiveCompact({ ok: false, error: 'overloaded' }, 'too long')).toEqual({
      kind: 'finish',
      reason: 'prompt_too_long',
      error: 'too long (reactive compaction failed: overloaded)',
    });
  });
});

describe('after an interrupt or a cancellation', () => {
  test('a cancelled workflow ends, saying what it stopped', () => {
    expect(afterStop('model', false, true)).toEqual({
      kind: 'finish',
      reason: 'aborted_streaming',
      error: 'Cancelled while the model was responding',
    });
    expect(afterStop('tools', false, false)).toEqual({
      kind: 'finish',
      reason: 'aborted_tools',
      error: 'Cancelled while tools were running',
    });
  });

  test('an interrupted interactive session waits for the next message; others end', () => {
    expect(afterStop('tools', true, false)).toEqual({
      kind: 'finish',
      reason: 'aborted_tools',
      error: 'Interrupted while tools were running',
    });
    expect(afterStop('model', true, true)).toEqual({
      kind: 'wait_for_message',
      otherwise: { kind: 'finish', reason: 'aborted_streaming', error: 'Interrupted while the model was responding' },
    });
  });
});

test('continue as new when Temporal suggests it or after the turns per run', () => {
  expect(shouldContinueAsNew(true, undefined, 0)).toBe(true);
  expect(shouldContinueAsNew(false, undefined, 1000)).toBe(false);
  expect(shouldContinueAsNew(false, 10, 9)).toBe(false);
  expect(shouldContinueAsNew(false, 10, 10)).toBe(true);
});

describe('uncountTurn', () => {
  test('a new turn stopped before its answer (for a rewind that was then refused) is counted again when it starts over; a retry was never counted', () => {
    expect(uncountTurn(loopState({ turnCount: 3, lastTransition: 'next_turn' })).turnCount).toBe(2);
    expect(uncountTurn(loopState({ turnCount: 3, lastTransition: 'rewind' })).turnCount).toBe(2);
    expect(uncountTurn(loopState({ turnCount: 3, lastTransition: 'max_output_tokens_escalate' })).turnCount).toBe(3);
  });
});
