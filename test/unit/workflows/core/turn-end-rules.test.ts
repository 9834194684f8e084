import { NEW_BUDGET_TRACKER } from '../../../../src/workflows/core/loop-state';
import { decideStopHook, decideTokenBudget, decideTurnEnd } from '../../../../src/workflows/core/turn-end-rules';
import { loopState } from '../../../support/loop-state';

describe('stop hooks', () => {
  test('blocks continue the loop up to the cap, then the run gives up', () => {
    expect(decideStopHook({ kind: 'allow', reports: [] }, 0)).toEqual({ kind: 'allow' });
    expect(decideStopHook({ kind: 'block', reason: 'fix it', reports: [] }, 0)).toEqual({
      kind: 'block',
      message: 'Stop hook feedback:\nfix it',
      consecutiveBlocks: 1,
    });
    expect(decideStopHook({ kind: 'block', reason: 'fix it', reports: [] }, 8)).toMatchObject({ kind: 'give_up' });
    expect(decideStopHook({ kind: 'prevent', reason: 'no', reports: [] }, 0)).toEqual({
      kind: 'prevent',
      reason: 'no',
    });
  });
});

describe('token budget', () => {
  test('nudges below 90% and stops at it; no budget, no nudge', () => {
    const first = decideTokenBudget(10_000, 2_000, NEW_BUDGET_TRACKER);
    expect(first).toMatchObject({
      kind: 'continue',
      nudge: expect.stringMatching(/^20% of the token budget used \(2000 of 10000 output tokens\)/),
    });
    expect(decideTokenBudget(10_000, 9_000, NEW_BUDGET_TRACKER)).toEqual({ kind: 'stop', why: 'budget_reached' });
    expect(decideTokenBudget(undefined, 0, NEW_BUDGET_TRACKER)).toEqual({ kind: 'stop', why: 'no_budget' });
  });

  test('after 3 continuations, two in a row under 500 tokens each mean diminishing returns', () => {
    let tracker = NEW_BUDGET_TRACKER;
    let output = 0;
    const decisions: string[] = [];
    for (const added of [1000, 300, 200, 100]) {
      output += added;
      const decision = decideTokenBudget(100_000, output, tracker);
      decisions.push(decision.kind === 'continue' ? 'continue' : decision.why);
      if (decision.kind === 'continue') tracker = decision.tracker;
    }
    expect(decisions).toEqual(['continue', 'continue', 'continue', 'diminishing_returns']);
    // Large steps keep going.
    expect(
      decideTokenBudget(100_000, 10_000, { continuations: 3, lastOutputTokens: 5_000, deltas: [4_000, 4_000] }).kind,
    ).toBe('continue');
  });
});

describe('the end of a turn', () => {
  const allow = { kind: 'allow' } as const;
  const facts = { hook: allow, tokenBudget: undefined, queued: [] as string[], interactive: false };

  test("in order: the stop hook's verdict, the budget, queued messages, waiting, else completed", () => {
    const state = loopState({
      usage: { inputTokens: 0, outputTokens: 1000, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    });
    const block = { kind: 'block', message: 'Stop hook feedback:\nfix it', consecutiveBlocks: 2 } as const;
    const everything = { hook: block, tokenBudget: 10_000, queued: ['Use tabs'], interactive: true };
    expect(decideTurnEnd(state, everything)).toMatchObject({
      kind: 'continue',
      state: { lastTransition: 'stop_hook_blocking', consecutiveStopHookBlocks: 2, stopHookActive: true },
    });
    expect(decideTurnEnd(state, { ...everything, hook: allow })).toMatchObject({
      kind: 'continue',
      state: { lastTransition: 'token_budget_continuation', budget: { continuations: 1 } },
    });
    expect(decideTurnEnd(state, { ...everything, hook: allow, tokenBudget: undefined })).toMatchObject({
      kind: 'continue',
      takesQueued: true,
      state: {
        lastTransition: 'user_message',
        pendingMessages: [expect.anything(), { role: 'user', kind: 'text', content: { text: 'Use tabs' } }],
      },
    });
    expect(decideTurnEnd(state, { ...facts, interactive: true })).toEqual({ kind: 'wait_for_message' });
    expect(decideTurnEnd(state, facts)).toEqual({ kind: 'finish', reason: 'completed' });
  });

  test('a hook that prevents the end, or keeps blocking it, ends the run with its reason', () => {
    expect(decideTurnEnd(loopState(), { ...facts, hook: { kind: 'prevent', reason: 'freeze' } })).toEqual({
      kind: 'finish',
      reason: 'stop_hook_prevented',
      error: 'freeze',
    });
    expect(
      decideTurnEnd(loopState(), {
        ...facts,
        hook: { kind: 'give_up', reason: 'blocked 8 times' },
        stopHookLimit: true,
      }),
    ).toEqual({ kind: 'finish', reason: 'stop_hook_limit', error: 'blocked 8 times' });
  });

  test('sessions from before stop_hook_limit keep ending an endless block with hook_stopped', () => {
    expect(decideTurnEnd(loopState(), { ...facts, hook: { kind: 'give_up', reason: 'blocked 8 times' } })).toEqual({
      kind: 'finish',
      reason: 'hook_stopped',
      error: 'blocked 8 times',
    });
  });
});
