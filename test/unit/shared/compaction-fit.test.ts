import {
  budgetAfterRefusal,
  fitMarginTokens,
  summaryInputBudget,
  summaryMaxTokens,
} from '../../../src/shared/compaction-fit';

describe('how big a compaction request may be', () => {
  test("the summary's output: Claude Code's 16,000 (at least 8,192) in a large window, a quarter of a small one", () => {
    expect(summaryMaxTokens(200_000, 8_192)).toBe(8_192);
    expect(summaryMaxTokens(200_000, 64_000)).toBe(16_000);
    expect(summaryMaxTokens(32_000, 64_000)).toBe(8_000);
    expect(summaryMaxTokens(4_400, 8_192)).toBe(1_100);
    expect(summaryMaxTokens(500, 8_192)).toBe(256);
  });

  test('the input budget: the window minus the output, less a margin for the estimate', () => {
    expect(fitMarginTokens(200_000)).toBe(12_000);
    expect(fitMarginTokens(4_400)).toBe(440);
    expect(summaryInputBudget(200_000, 16_000)).toBe(172_000);
    expect(summaryInputBudget(4_400, 1_100)).toBe(2_860);
    // Output plus input never pass the window.
    for (const window of [4_400, 8_000, 32_000, 100_000, 200_000, 1_000_000]) {
      const output = summaryMaxTokens(window, 8_192);
      expect(summaryInputBudget(window, output) + output).toBeLessThanOrEqual(window);
    }
  });

  test("after a refusal the budget fits the server's window, counted as the server counts", () => {
    // Estimated 2,000, the server counted 2,500 of a 2,000-token window (output 500):
    // (2,000 − 500 − 200) server tokens = 1,040 estimated tokens.
    expect(budgetAfterRefusal(3_000, 2_000, { tokens: 2_500, maximum: 2_000 }, 500)).toBe(1_040);
  });

  test('the next budget is always smaller than the last request, so the same request never goes twice', () => {
    // A refusal that barely overflows still shrinks by 10%.
    expect(budgetAfterRefusal(10_000, 5_000, { tokens: 4_401, maximum: 4_400 }, 0)).toBeLessThanOrEqual(4_500);
    // Without figures: 70% of the smaller of the budget and the request.
    expect(budgetAfterRefusal(10_000, 5_000, undefined, 1_000)).toBe(3_500);
    // Nothing left is 0, never negative.
    expect(budgetAfterRefusal(100, 100, { tokens: 9_000, maximum: 100 }, 200)).toBe(0);
  });
});
