import type { PlannedToolUse } from '../../../../src/shared/activity-io';
import { rulesOf } from '../../../../src/workflows/core/tool-rules';

const planned = (name: string, input: unknown, rules?: PlannedToolUse['plan']['rules']): PlannedToolUse => ({
  id: 'toolu_1',
  name,
  input,
  plan: { ok: true, concurrencySafe: false, summary: name, ...(rules ? { rules } : {}) },
});

describe('rulesOf', () => {
  test('takes the rules the plan carries, whatever the name says', () => {
    expect(rulesOf(planned('Bash', { command: 'ls' }, {}))).toEqual({});
    expect(rulesOf(planned('Lint', { path: 'a' }, { needsApproval: true, subject: 'a' }))).toEqual({
      needsApproval: true,
      subject: 'a',
    });
    expect(rulesOf({ id: 'x', name: 'Bash', input: {}, plan: { ok: false, errorText: 'bad', rules: {} } })).toEqual({});
  });

  test('plans recorded before the rules travelled with them get the rules their tool had then', () => {
    expect(rulesOf(planned('Bash', { command: 'npm test', timeout: 1_000 }))).toEqual({
      needsApproval: true,
      subject: 'npm test',
      cancelsLaterCallsOnError: true,
      timeoutMs: 61_000,
      changesFiles: true,
    });
    expect(rulesOf(planned('Bash', { command: 'ls' })).timeoutMs).toBe(180_000);
    expect(rulesOf(planned('Edit', { file_path: 'a.ts' }))).toEqual({
      needsApproval: true,
      subject: 'a.ts',
      changesFiles: true,
    });
    expect(rulesOf(planned('Write', { file_path: 'b.ts' }))).toEqual({
      needsApproval: true,
      subject: 'b.ts',
      changesFiles: true,
    });
    expect(rulesOf(planned('Read', { file_path: 'a.ts' }))).toEqual({ subject: 'a.ts', readsFile: true });
    expect(rulesOf(planned('Grep', { pattern: 'x' }))).toEqual({ subject: 'x' });
    // An invalid Bash call cancelled the calls after it then, and still does.
    expect(
      rulesOf({ id: 'x', name: 'Bash', input: {}, plan: { ok: false, errorText: 'bad' } }).cancelsLaterCallsOnError,
    ).toBe(true);
  });
});
