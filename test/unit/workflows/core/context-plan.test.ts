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

  test('a learned window scales the reserves: a quarter of it for output, a tenth as buffer', () => {
    // Learned 4,400: 4,400 − 1,100 − 440 (Claude Code's reserves would leave less than nothing).
    expect(autocompactThreshold(loopState({ contextWindowTokens: 4_400, learnedContextWindow: 4_400 }))).toBe(2_860);
    // Without the patch (recorded sessions): the floor share of the window.
    expect(autocompactThreshold(loopState({ contextWindowTokens: 4_400, autocompactFloorShare: 0.25 }))).toBe(1_100);
    // 32K: 32,000 − min(8,192, 8,000) − 3,200.
    expect(autocompactThreshold(loopState({ contextWindowTokens: 32_000, learnedContextWindow: 32_000 }))).toBe(20_800);
    // A large learned window keeps Claude Code's reserves.
    expect(
      autocompactThreshold(
        loopState({ contextWindowTokens: 190_000, learnedContextWindow: 190_000, maxOutputTokens: 32_000 }),
      ),
    ).toBe(190_000 - 20_000 - 13_000);
  });
});
