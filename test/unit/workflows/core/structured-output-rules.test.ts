import type { PlannedToolUse } from '../../../../src/shared/activity-io';
import { STRUCTURED_OUTPUT_MAX_ATTEMPTS, STRUCTURED_OUTPUT_REMINDER } from '../../../../src/shared/structured-output';
import {
  afterStructuredOutputCalls,
  decideStructuredOutput,
  deliveredIn,
} from '../../../../src/workflows/core/structured-output-rules';
import { decideTurnEnd } from '../../../../src/workflows/core/turn-end-rules';
import { loopState } from '../../../support/loop-state';

const rules = { sessionControl: 'structured_output' as const };

function invalidCall(id: string, problems: string): PlannedToolUse {
  const errorText = `<tool_use_error>Output does not match required schema: ${problems}</tool_use_error>`;
  return { id, name: 'StructuredOutput', input: {}, plan: { ok: false, errorText, rules } };
}

function validCall(id: string, input: unknown): PlannedToolUse {
  return { id, name: 'StructuredOutput', input, plan: { ok: true, concurrencySafe: false, summary: 'x', rules } };
}

describe('structured output: re-asks', () => {
  test('each invalid call counts; the session ends at the limit with the last error', () => {
    let state = loopState();
    for (let attempt = 1; attempt < STRUCTURED_OUTPUT_MAX_ATTEMPTS; attempt++) {
      const after = afterStructuredOutputCalls(state, [invalidCall(`t${attempt}`, '/count: must be number')]);
      expect(after.finish).toBeUndefined();
      state = after.state;
      expect(state.structuredOutputFailures).toEqual({
        count: attempt,
        lastError: 'Output does not match required schema: /count: must be number',
      });
    }
    const last = afterStructuredOutputCalls(state, [invalidCall('t5', 'root: must have required property x')]);
    expect(last.finish).toEqual({
      kind: 'finish',
      reason: 'structured_output_retry_exhausted',
      error:
        'Failed to provide valid structured output after 5 attempts — last StructuredOutput error: Output does not match required schema: root: must have required property x',
    });
  });

  test('other calls and valid ones count nothing; a valid call ends the turn', () => {
    const state = loopState();
    const read: PlannedToolUse = {
      id: 'r',
      name: 'Read',
      input: {},
      plan: { ok: false, errorText: 'bad', rules: {} },
    };
    expect(afterStructuredOutputCalls(state, [read, validCall('v', { a: 1 })])).toEqual({ state });
    expect(deliveredIn([validCall('v', { a: 1 })], state)).toBe(false);
    const given = { ...state, structuredOutput: { a: 1 } };
    expect(deliveredIn([validCall('v', { a: 1 })], given)).toBe(true);
    expect(deliveredIn([read], given)).toBe(false);
  });

  test('a turn ended without the output goes on with the reminder, then gives up', () => {
    const state = loopState();
    const decision = decideStructuredOutput(state);
    expect(decision).toMatchObject({
      kind: 'continue',
      state: { lastTransition: 'structured_output_retry', structuredOutputFailures: { count: 1 } },
    });
    const pending = decision.kind === 'continue' ? decision.state.pendingMessages : [];
    expect(pending.at(-1)).toEqual({ role: 'user', kind: 'text', content: { text: STRUCTURED_OUTPUT_REMINDER } });
    const nearly = { ...state, structuredOutputFailures: { count: STRUCTURED_OUTPUT_MAX_ATTEMPTS - 1 } };
    expect(decideStructuredOutput(nearly)).toEqual({
      kind: 'finish',
      reason: 'structured_output_retry_exhausted',
      error: 'Failed to provide valid structured output after 5 attempts',
    });
    expect(decideStructuredOutput({ ...state, structuredOutput: {} })).toEqual({ kind: 'allow' });
  });

  test('decideTurnEnd asks for it after the stop hooks and before the end; sessions without outputFormat end', () => {
    const state = loopState();
    const facts = { hook: { kind: 'allow' as const }, tokenBudget: undefined, queued: [], interactive: false };
    expect(decideTurnEnd(state, facts)).toEqual({ kind: 'finish', reason: 'completed' });
    expect(decideTurnEnd(state, { ...facts, structuredOutput: true })).toMatchObject({
      kind: 'continue',
      state: { lastTransition: 'structured_output_retry' },
    });
    expect(decideTurnEnd({ ...state, structuredOutput: { ok: true } }, { ...facts, structuredOutput: true })).toEqual({
      kind: 'finish',
      reason: 'completed',
    });
  });
});
