import { staticSummaryOf } from '../../../src/cli/static-summary';

describe("the UI's summary of a session the CLI starts", () => {
  test("the prompt's first line with something on it, on one line, cut to 80 characters", () => {
    expect(staticSummaryOf('Rename parseConfig to loadConfig')).toBe('Rename parseConfig to loadConfig');
    const prompt = '\n  Fix the flaky test\t in cart.spec.ts\nIt fails one run in ten.';
    expect(staticSummaryOf(prompt)).toBe('Fix the flaky test in cart.spec.ts');
    const long = staticSummaryOf(`Refactor ${'the payment module '.repeat(10)}`)!;
    expect(long).toHaveLength(80);
    expect(long.startsWith('Refactor the payment module') && long.endsWith('…')).toBe(true);
  });

  test('no prompt text (a prompt stored by reference), no summary', () => {
    expect(staticSummaryOf(undefined)).toBeUndefined();
    expect(staticSummaryOf(' \n ')).toBeUndefined();
  });
});
