import { interpretHook } from '../../../../src/activities/hooks/stop-hooks';

describe('a stop hook run, interpreted', () => {
  const run = (exitCode: number | null, stdout = '', stderr = '', timedOut = false) => ({
    exitCode,
    stdout,
    stderr,
    timedOut,
  });

  test('exit 0 allows; exit 2 blocks with stderr; JSON decides when printed', () => {
    expect(interpretHook('h', run(0, 'all good'))).toBeUndefined();
    expect(interpretHook('h', run(2, '', 'tests fail'))).toEqual({ kind: 'block', reason: 'tests fail' });
    expect(interpretHook('h', run(0, '{"decision":"block","reason":"lint errors"}'))).toEqual({
      kind: 'block',
      reason: 'lint errors',
    });
    expect(interpretHook('h', run(0, '{"continue":false,"stopReason":"freeze"}'))).toEqual({
      kind: 'prevent',
      reason: 'freeze',
    });
  });

  test('other failures are reported and do not block', () => {
    expect(interpretHook('h', run(1, '', 'boom'))).toEqual({
      kind: 'report',
      text: expect.stringContaining('exit code 1; not blocking: boom'),
    });
    expect(interpretHook('h', run(null, '', '', true))).toEqual({
      kind: 'report',
      text: expect.stringContaining('timed out'),
    });
  });
});
