import { interpretEventHook } from '../../../../src/activities/hooks/event-output';

const run = (exitCode: number, stdout = '', stderr = '') => ({ exitCode, stdout, stderr, timedOut: false });

test('SessionStart and SubagentStart: plain stdout or additionalContext is context; exit 2 cannot block', () => {
  expect(interpretEventHook('SessionStart', 'x', run(0, 'Sprint 4: ship the parser\n'))).toEqual({
    feedback: 'Sprint 4: ship the parser',
  });
  const json = JSON.stringify({
    hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: 'be brief' },
  });
  expect(interpretEventHook('SubagentStart', 'x', run(0, json))).toEqual({ feedback: 'be brief' });
  expect(interpretEventHook('SessionStart', 'x', run(2, '', 'nope'))).toEqual({
    report: expect.stringContaining('cannot block'),
  });
});

test('PreCompact: exit 2 or decision block blocks the compaction', () => {
  expect(interpretEventHook('PreCompact', 'x', run(2, '', 'not now'))).toEqual({ blocked: 'not now' });
  expect(interpretEventHook('PreCompact', 'x', run(0, '{"decision":"block","reason":"mid-migration"}'))).toEqual({
    blocked: 'mid-migration',
  });
  expect(interpretEventHook('PreCompact', 'x', run(0, '{}'))).toEqual({});
});

test('PermissionRequest: decision.behavior allow or deny (with its message); exit 2 denies', () => {
  const allow = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };
  expect(interpretEventHook('PermissionRequest', 'x', run(0, JSON.stringify(allow)))).toEqual({ decision: 'allow' });
  const deny = { hookSpecificOutput: { decision: { behavior: 'deny', message: 'not on main' } } };
  expect(interpretEventHook('PermissionRequest', 'x', run(0, JSON.stringify(deny)))).toEqual({
    decision: 'deny',
    reason: 'not on main',
  });
  expect(interpretEventHook('PermissionRequest', 'x', run(2, '', 'no'))).toEqual({ decision: 'deny', reason: 'no' });
  expect(interpretEventHook('PermissionRequest', 'x', run(0, '{"hookSpecificOutput":{"decision":{}}}'))).toEqual({});
});

test('PostToolUseFailure: exit 2 or additionalContext is feedback after the failed result', () => {
  expect(interpretEventHook('PostToolUseFailure', 'x', run(2, '', 'try npm ci first'))).toEqual({
    feedback: 'try npm ci first',
  });
  const json = { hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: 'see docs/build.md' } };
  expect(interpretEventHook('PostToolUseFailure', 'x', run(0, JSON.stringify(json)))).toEqual({
    feedback: 'see docs/build.md',
  });
});

test('SessionEnd, PostCompact, Notification only watch; failures are reported; continue:false stops (not SessionEnd)', () => {
  expect(interpretEventHook('Notification', 'x', run(0, 'hello'))).toEqual({});
  expect(interpretEventHook('PostCompact', 'x', run(1, '', 'boom'))).toEqual({
    report: expect.stringContaining('failed with exit code 1'),
  });
  expect(interpretEventHook('SessionEnd', 'x', run(0, '{"continue":false}'))).toEqual({});
  expect(interpretEventHook('SessionStart', 'x', run(0, '{"continue":false,"stopReason":"frozen"}'))).toEqual({
    stop: 'frozen',
  });
  expect(interpretEventHook('PreCompact', 'x', { ...run(0), timedOut: true })).toEqual({
    report: expect.stringContaining('timed out'),
  });
});
