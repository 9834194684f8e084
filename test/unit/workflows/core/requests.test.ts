import {
  callModelRequest,
  compactRequest,
  contextEditRequest,
  modelCallSummary,
  runToolRequest,
  stopHookRequest,
} from '../../../../src/workflows/core/requests';
import { loopState } from '../../../support/loop-state';
import { readCall } from '../../../support/model-outcomes';

describe('activity inputs from the loop state', () => {
  test('the model call names the conversation by reference and adds only what is new; an escalation asks for more output', () => {
    const pending = [{ role: 'user' as const, kind: 'text' as const, content: { text: 'next' } }];
    const state = loopState({ conversationRef: 'sha256:c', pendingMessages: pending, maxOutputTokensOverride: 64_000 });
    expect(callModelRequest(state)).toEqual({
      turn: 0,
      model: 'claude-sonnet-5-5',
      maxOutputTokens: 64_000,
      fallbackModel: undefined,
      fallbackAfterOverloads: 3,
      systemRef: 'sha256:system',
      allowedTools: [
        ...['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep', 'TodoWrite', 'Task'],
        ...['EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion'],
      ],
      workdir: '/real/repo',
      conversationRef: 'sha256:c',
      append: pending,
    });
    expect(contextEditRequest(state, ['collapse'], 0, 1000)).toEqual({
      conversationRef: 'sha256:c',
      append: pending,
      steps: ['collapse'],
      targetTokens: 0,
      baseTokens: 1000,
    });
    expect(compactRequest(state, 'reactive')).toMatchObject({
      conversationRef: 'sha256:c',
      append: pending,
      reason: 'reactive',
      maxOutputTokens: 8192,
    });
  });

  test("the model call's line in the UI names the recovery it retries for", () => {
    expect(modelCallSummary(loopState({ turnCount: 3, lastTransition: 'next_turn' }))).toBe('turn 3 · model');
    expect(modelCallSummary(loopState({ turnCount: 3, lastTransition: 'max_output_tokens_escalate' }))).toBe(
      'turn 3 · model (max_output_tokens_escalate)',
    );
  });

  test('a tool call gets the file state of its target only; hooks get the final text', () => {
    const state = loopState({
      fileStates: { '/real/repo/a.ts': 'abc', '/real/repo/b.ts': 'def' },
      finalText: 'Done.',
      stopHookActive: true,
    });
    expect(runToolRequest('session-1', state, readCall)).toEqual({
      sessionId: 'session-1',
      toolUseId: 'toolu_1',
      name: 'Read',
      input: { file_path: 'a.ts' },
      workdir: '/real/repo',
      fileStates: [{ path: '/real/repo/a.ts', sha256: 'abc' }],
    });
    expect(stopHookRequest('session-1', state, [{ command: 'npm test' }])).toEqual({
      sessionId: 'session-1',
      workdir: '/real/repo',
      hooks: [{ command: 'npm test' }],
      finalText: 'Done.',
      stopHookActive: true,
    });
  });

  test("the session's sandbox wishes go to every command; a person's approval goes with the call", () => {
    const state = loopState({ sandbox: { env: { CI: '1' }, network: false } });
    expect(runToolRequest('session-1', state, readCall, { approved: true, feedback: 'careful' })).toMatchObject({
      sandbox: { env: { CI: '1' }, network: false },
      approved: true,
      approvalFeedback: 'careful',
    });
    expect(stopHookRequest('session-1', state, [])).toMatchObject({ sandbox: { env: { CI: '1' }, network: false } });
    expect(runToolRequest('session-1', loopState(), readCall)).not.toHaveProperty('approved');
    expect(runToolRequest('session-1', loopState(), readCall)).not.toHaveProperty('instructionDirs');
    expect(runToolRequest('session-1', loopState({ instructionDirs: ['packages/api'] }), readCall)).toMatchObject({
      instructionDirs: ['packages/api'],
    });
  });
});
