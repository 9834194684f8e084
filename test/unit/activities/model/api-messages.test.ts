import { capMessageResults } from '../../../../src/activities/model/api-messages';

describe('the per-message tool-result budget', () => {
  test('cuts the largest results until the message fits', () => {
    const capped = capMessageResults(['a'.repeat(150_000), 'b'.repeat(100_000), 'c'.repeat(10)]);
    expect(capped[0]!.length).toBeLessThan(3_000);
    expect(capped[0]).toContain('this one had 150000');
    expect(capped[1]).toBe('b'.repeat(100_000));
    expect(capped[2]).toBe('c'.repeat(10));
    expect(capMessageResults(['x', 'y'])).toEqual(['x', 'y']);
  });
});
