import {
  afterAutocompact,
  autocompactThreshold,
  editThreshold,
  needsAutocompact,
  needsContextEdits,
  reattachBudgetChars,
} from '../../../../src/workflows/core/context-plan';
import { loopState } from '../../../support/loop-state';

describe('the context plan', () => {
  test("Claude Code's autocompact threshold: window − min(max output, 20,000) − 13,000", () => {
    expect(autocompactThreshold(loopState())).toBe(200_000 - 8192 - 13_000);
    expect(autocompactThreshold(loopState({ maxOutputTokens: 32_000 }))).toBe(200_000 - 20_000 - 13_000);
    expect(editThreshold(loopState())).toBe(Math.floor((200_000 - 8192 - 13_000) * 0.8));
    expect(reattachBudgetChars(loopState())).toBe(Math.floor(((200_000 - 8192 - 13_000) / 4) * 4));
  });

  test('edits run above 80% of the threshold or when the history is long; autocompact above it, until the breaker trips', () => {
    const threshold = autocompactThreshold(loopState());
    expect(needsContextEdits(loopState({ contextTokens: 1000 }))).toBe(false);
    expect(needsContextEdits(loopState({ contextTokens: Math.ceil(threshold * 0.81) }))).toBe(true);
    expect(needsContextEdits(loopState({ messageCount: 401 }))).toBe(true);
    expect(needsAutocompact(loopState({ contextTokens: threshold - 10 }))).toBe(false);
    expect(needsAutocompact(loopState({ contextTokens: threshold + 10 }))).toBe(true);
    let state = loopState({ contextTokens: threshold + 10 });
    for (let failure = 0; failure < 3; failure++) state = afterAutocompact(state, false);
    expect(needsAutocompact(state)).toBe(false); // circuit breaker: rely on the reactive path
    expect(needsAutocompact(afterAutocompact(state, true))).toBe(true);
  });
});
