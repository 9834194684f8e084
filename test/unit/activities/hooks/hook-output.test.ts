import { combineVerdicts, interpretPromptHook, interpretToolHook } from '../../../../src/activities/hooks/hook-output';

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

describe("Claude Code's other outputs", () => {
  const pre = (specific: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    interpretToolHook(
      'PreToolUse',
      'x',
      json({ hookSpecificOutput: { hookEventName: 'PreToolUse', ...specific }, ...extra }),
    );

  test('PreToolUse updatedInput (the whole new input) and additionalContext, with or without a decision', () => {
    expect(pre({ updatedInput: { command: 'echo two' } })).toEqual({ updatedInput: { command: 'echo two' } });
    expect(
      pre({ permissionDecision: 'allow', updatedInput: { command: 'ls' }, additionalContext: 'repo is big' }),
    ).toEqual({ decision: 'allow', updatedInput: { command: 'ls' }, context: 'repo is big' });
  });

  test('an update with deny or defer, or one that is no object, changes nothing; defer is no decision', () => {
    expect(pre({ permissionDecision: 'deny', updatedInput: { command: 'ls' } })).toEqual({ decision: 'deny' });
    expect(pre({ permissionDecision: 'defer', updatedInput: { command: 'ls' } })).toEqual({});
    expect(pre({ updatedInput: ['ls'] })).toEqual({});
    expect(pre({ updatedInput: 'ls' })).toEqual({});
  });

  test('PostToolUse updatedToolOutput as text (MCP text blocks joined, other values as JSON); updatedMCPToolOutput apart', () => {
    const post = (specific: Record<string, unknown>) =>
      interpretToolHook(
        'PostToolUse',
        'x',
        json({ hookSpecificOutput: { hookEventName: 'PostToolUse', ...specific } }),
      );
    expect(post({ updatedToolOutput: 'redacted' })).toEqual({ updatedOutput: 'redacted' });
    expect(
      post({
        updatedToolOutput: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({
      updatedOutput: 'a\nb',
    });
    expect(post({ updatedToolOutput: { rows: 2 } })).toEqual({ updatedOutput: '{"rows":2}' });
    expect(post({ updatedMCPToolOutput: 'mcp only' })).toEqual({ updatedMcpOutput: 'mcp only' });
  });

  test('systemMessage and suppressOutput, for every event', () => {
    expect(pre({}, { systemMessage: ' Policy checked ', suppressOutput: true })).toEqual({
      message: 'Policy checked',
      suppress: true,
    });
    expect(interpretToolHook('UserPromptSubmit', 'x', json({ systemMessage: 'hi' }))).toEqual({ message: 'hi' });
  });

  test('combined: the last updatedInput (and its hook), every context and message, any suppressOutput', () => {
    const combined = combineVerdicts([
      { command: 'a', updatedInput: { command: 'one' }, context: 'c1', message: 'm1' },
      { command: 'b', updatedInput: { command: 'two' }, context: 'c2', suppress: true },
      { command: 'c', updatedOutput: 'out' },
    ]);
    expect(combined).toEqual({
      reports: [],
      updatedInput: { input: { command: 'two' }, command: 'b' },
      context: 'c1\n\nc2',
      systemMessages: ['m1'],
      suppressOutput: true,
      updatedOutput: 'out',
    });
  });
});

describe('prompt hooks: the model answers {"ok": true|false, "reason": …}', () => {
  test('ok:false denies a call, is feedback after one, blocks a prompt; ok:true has no say', () => {
    const no = '{"ok": false, "reason": "deletes files"}';
    expect(interpretPromptHook('PreToolUse', 'p', no)).toEqual({ decision: 'deny', reason: 'deletes files' });
    expect(interpretPromptHook('PostToolUse', 'p', no)).toEqual({ feedback: 'deletes files' });
    expect(interpretPromptHook('UserPromptSubmit', 'p', no)).toEqual({ blocked: 'deletes files' });
    expect(interpretPromptHook('PreToolUse', 'p', '{"ok": true, "reason": ""}')).toEqual({});
  });

  test('JSON in a code fence or among words is read; anything else is reported', () => {
    expect(interpretPromptHook('PreToolUse', 'p', 'Sure:\n```json\n{"ok": false, "reason": "no"}\n```')).toEqual({
      decision: 'deny',
      reason: 'no',
    });
    expect(interpretPromptHook('PreToolUse', 'p', 'I think it is fine').report).toMatch(/not \{"ok"/);
    expect(interpretPromptHook('PreToolUse', 'p', '{"ok": "yes"}').report).toMatch(/not \{"ok"/);
  });

  test('the earlier {"decision": "block"|"allow"} shape (still in settings files) is read too; Stop blocks', () => {
    expect(interpretPromptHook('Stop', 'p', '{"decision": "block", "reason": "add a summary"}')).toEqual({
      blocked: 'add a summary',
    });
    expect(interpretPromptHook('Stop', 'p', '{"decision": "allow"}')).toEqual({});
    expect(interpretPromptHook('Stop', 'p', '{"decision": "maybe"}').report).toMatch(/not \{"ok"/);
  });
});
