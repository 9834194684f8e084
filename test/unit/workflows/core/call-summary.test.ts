import type { PlannedToolUse } from '../../../../src/shared/activity-io';
import { summaryOf } from '../../../../src/workflows/core/call-summary';

test("a call's line is its plan's summary, or its tool's name when its input was invalid", () => {
  const planned: PlannedToolUse = {
    id: 'toolu_1',
    name: 'Read',
    input: { file_path: 'src/a.ts' },
    plan: { ok: true, concurrencySafe: true, summary: 'Read src/a.ts' },
  };
  expect(summaryOf(planned)).toBe('Read src/a.ts');
  const invalid: PlannedToolUse = { ...planned, input: {}, plan: { ok: false, errorText: 'file_path: Required' } };
  expect(summaryOf(invalid)).toBe('Read (invalid input)');
});
