import { afterModel } from '../../../../src/workflows/core/loop';
import {
  absorbToolResults,
  estimateTokens,
  fileStatesFor,
  forgetShownInstructions,
  recordFileState,
  recordInstructionDirs,
  toResult,
} from '../../../../src/workflows/core/loop-state';
import { loopState } from '../../../support/loop-state';
import { readCall, response, usage } from '../../../support/model-outcomes';

describe('the initial state', () => {
  test('starts with the prompt as the one pending message, nothing sent, per-turn recovery state clear', () => {
    const initial = loopState();
    expect(initial).toMatchObject({
      turnCount: 0,
      maxTurns: 3,
      maxOutputTokens: 8192,
      conversationRef: null,
      workdir: '/real/repo',
      contextWindowTokens: 200_000,
      contextTokens: 1000,
      maxOutputTokensRecoveryCount: 0,
      hasAttemptedReactiveCompact: false,
      maxOutputTokensOverride: null,
      consecutiveAutocompactFailures: 0,
    });
    expect(initial.pendingMessages).toEqual([{ role: 'user', kind: 'text', content: { text: 'do it' } }]);
    expect(initial.allowedTools).toEqual([
      ...['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep', 'TodoWrite', 'Task'],
      ...['EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion'],
    ]);
    expect(loopState({}, { contextWindowTokens: 50_000 }).contextWindowTokens).toBe(50_000);
  });

  test("asks for no more output than the model can give (the model table's limit)", () => {
    expect(loopState({}, { maxOutputTokens: 100_000 }).maxOutputTokens).toBe(64_000);
    expect(loopState({}, { maxOutputTokens: 20_000 }).maxOutputTokens).toBe(20_000);
  });
});

describe('nested instruction files shown', () => {
  test('are remembered once each, and forgotten when the conversation may have lost them', () => {
    const shown = recordInstructionDirs(recordInstructionDirs(loopState(), ['packages', 'packages/api']), [
      'packages/api',
      'docs',
    ]);
    expect(shown.instructionDirs).toEqual(['packages', 'packages/api', 'docs']);
    expect(forgetShownInstructions(shown)).not.toHaveProperty('instructionDirs');
    expect(loopState()).not.toHaveProperty('instructionDirs');
  });
});

describe('bookkeeping', () => {
  test('tool results follow the assistant message as ONE user message', () => {
    const afterResponse = afterModel(loopState(), response({ toolUses: [readCall] })).state;
    const results = [{ toolUseId: 'toolu_1', isError: false, content: { text: 'ok' } }];
    expect(absorbToolResults(afterResponse, results).pendingMessages).toEqual([
      { role: 'assistant', kind: 'assistant', ref: 'sha256:assistant', chars: 10 },
      { role: 'user', kind: 'tool_results', results },
    ]);
  });

  test('file states are recorded, read files remembered newest last, and handed only to the call that targets the file', () => {
    let known = recordFileState(loopState(), { path: '/real/repo/a.ts', sha256: 'abc' }, true);
    known = recordFileState(known, { path: '/real/repo/b.ts', sha256: 'def' }, true);
    known = recordFileState(known, { path: '/real/repo/a.ts', sha256: 'abc' }, true);
    known = recordFileState(known, { path: '/real/repo/c.ts', sha256: '123' }, false);
    expect(known.recentFiles).toEqual(['/real/repo/b.ts', '/real/repo/a.ts']);
    expect(fileStatesFor(known, readCall)).toEqual([{ path: '/real/repo/a.ts', sha256: 'abc' }]);
    expect(
      fileStatesFor(known, { ...readCall, plan: { ok: true, concurrencySafe: false, summary: 'Bash ls' } }),
    ).toEqual([]);
    expect(fileStatesFor(loopState(), readCall)).toEqual([]);
  });

  test('the estimate is the last real count plus chars/4 of what was added since', () => {
    const state = loopState({
      contextTokens: 5000,
      pendingMessages: [{ role: 'user', kind: 'text', content: { ref: 'sha256:x', chars: 4000, preview: '' } }],
    });
    expect(estimateTokens(state)).toBe(6000);
  });

  test('the result carries reason, turns, final text and usage', () => {
    const final = afterModel(loopState({ turnCount: 2 }), response()).state;
    expect(toResult(final, 'completed')).toEqual({
      reason: 'completed',
      turnCount: 2,
      finalText: 'All done.',
      usage: usage(100, 20),
    });
    expect(toResult(final, 'model_error', 'boom')).toMatchObject({ reason: 'model_error', error: 'boom' });
  });
});
