import { combineVerdicts, interpretToolHook } from '../../../../src/activities/hooks/hook-output';

const run = (exitCode: number, stdout = '', stderr = '', timedOut = false) => ({ exitCode, stdout, stderr, timedOut });
const json = (value: unknown) => run(0, JSON.stringify(value));

describe('PreToolUse', () => {
  test('exit 2 denies with stderr as the reason; exit 0 has no say', () => {
    expect(interpretToolHook('PreToolUse', 'x', run(2, '', 'rm -rf is not allowed\n'))).toEqual({
      decision: 'deny',
      reason: 'rm -rf is not allowed',
    });
    expect(interpretToolHook('PreToolUse', 'x', run(0, 'checked'))).toEqual({});
  });

  test('permissionDecision allow, deny and ask, with their reason (and the older approve/block)', () => {
    for (const decision of ['allow', 'deny', 'ask'] as const) {
      expect(
        interpretToolHook(
          'PreToolUse',
          'x',
          json({
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: decision,
              permissionDecisionReason: 'because',
            },
          }),
        ),
      ).toEqual({ decision, reason: 'because' });
    }
    expect(interpretToolHook('PreToolUse', 'x', json({ decision: 'approve' }))).toEqual({ decision: 'allow' });
    expect(interpretToolHook('PreToolUse', 'x', json({ decision: 'block', reason: 'no' }))).toEqual({
      decision: 'deny',
      reason: 'no',
    });
  });

  test('continue:false stops the run after the turn and lets no call through', () => {
    expect(interpretToolHook('PreToolUse', 'x', json({ continue: false, stopReason: 'budget spent' }))).toEqual({
      stop: 'budget spent',
      decision: 'deny',
      reason: 'budget spent',
    });
  });

  test('other exits and timeouts are reported and decide nothing', () => {
    expect(interpretToolHook('PreToolUse', './p.sh', run(1, '', 'boom'))).toEqual({
      report: 'PreToolUse hook `./p.sh` failed with exit code 1; ignored: boom',
    });
    expect(interpretToolHook('PreToolUse', './p.sh', run(0, '', '', true))).toEqual({
      report: 'PreToolUse hook `./p.sh` timed out; ignored',
    });
  });
});

describe('PostToolUse', () => {
  test('exit 2, decision block and additionalContext are feedback for the model', () => {
    expect(interpretToolHook('PostToolUse', 'x', run(2, '', 'lint: 3 errors'))).toEqual({ feedback: 'lint: 3 errors' });
    expect(interpretToolHook('PostToolUse', 'x', json({ decision: 'block', reason: 'formatted src/a.ts' }))).toEqual({
      feedback: 'formatted src/a.ts',
    });
    expect(
      interpretToolHook(
        'PostToolUse',
        'x',
        json({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'reformatted' } }),
      ),
    ).toEqual({ feedback: 'reformatted' });
    expect(interpretToolHook('PostToolUse', 'x', run(0, 'just a log line'))).toEqual({});
  });
});

describe('UserPromptSubmit', () => {
  test('plain stdout or additionalContext is context; exit 2 or decision block blocks the prompt', () => {
    expect(interpretToolHook('UserPromptSubmit', 'x', run(0, 'Branch: main\n'))).toEqual({ feedback: 'Branch: main' });
    expect(
      interpretToolHook('UserPromptSubmit', 'x', json({ hookSpecificOutput: { additionalContext: 'ctx' } })),
    ).toEqual({ feedback: 'ctx' });
    expect(interpretToolHook('UserPromptSubmit', 'x', run(2, '', 'no secrets in prompts'))).toEqual({
      blocked: 'no secrets in prompts',
    });
    expect(interpretToolHook('UserPromptSubmit', 'x', json({ decision: 'block', reason: 'nope' }))).toEqual({
      blocked: 'nope',
    });
  });
});

describe('several hooks of one event', () => {
  test('a deny wins over ask and allow; then ask over allow', () => {
    const verdicts = [
      { command: 'a', decision: 'allow' as const, reason: 'fine' },
      { command: 'b', decision: 'deny' as const, reason: 'not on main' },
      { command: 'c', decision: 'ask' as const },
    ];
    expect(combineVerdicts(verdicts)).toEqual({ decision: 'deny', reason: 'not on main', reports: [] });
    expect(combineVerdicts([verdicts[0]!, verdicts[2]!])).toEqual({ decision: 'ask', reports: [] });
  });

  test('feedback, blocks, stops and reports are all kept, and cut when huge', () => {
    const combined = combineVerdicts([
      { command: 'a', feedback: 'one' },
      { command: 'b', feedback: 'x'.repeat(20_000), report: 'b failed' },
      { command: 'c', stop: 'enough' },
    ]);
    expect(combined.reports).toEqual(['b failed']);
    expect(combined.stop).toBe('enough');
    expect(combined.feedback!.startsWith('one\n\nxxx')).toBe(true);
    expect(combined.feedback!.endsWith('[… cut at 10000 characters]')).toBe(true);
  });
});
