/** The batch runner with a runner of plain functions: no workflow, no activities. */
import type { PlannedToolUse, RunToolOutput } from '../../../../src/shared/activity-io';
import { runToolUses, type ToolRunner } from '../../../../src/workflows/turn/run-tools';
import { summaryOf } from '../../../../src/workflows/core/call-summary';
import type { ApprovalAnswer } from '../../../../src/workflows/session/steering';
import type { HookDenial } from '../../../../src/workflows/turn/tool-hooks';

const call = (id: string, safe: boolean, rules: Record<string, unknown> = {}): PlannedToolUse => ({
  id,
  name: safe ? 'Read' : 'Bash',
  input: {},
  plan: { ok: true, concurrencySafe: safe, summary: `${safe ? 'Read' : 'Bash'} ${id}`, rules },
});

function runner(options: { failing?: string[]; answers?: Record<string, ApprovalAnswer | HookDenial> } = {}) {
  const log: string[] = [];
  const results = new Map<string, RunToolOutput['result']>();
  const tools: ToolRunner = {
    approve: async (planned) => options.answers?.[planned.id] ?? null,
    run: async (planned, approval) => {
      log.push(
        `start ${planned.id}${approval ? ' (approved)' : ''}${approval?.feedback ? ` (feedback: ${approval.feedback})` : ''}`,
      );
      await Promise.resolve();
      log.push(`end ${planned.id}`);
      return {
        result: {
          toolUseId: planned.id,
          isError: options.failing?.includes(planned.id) ?? false,
          content: { text: `ran ${planned.id}` },
        },
      };
    },
    onBatch: (calls) => log.push(`batch ${calls.map((planned) => planned.id).join(',')}`),
    onResult: (planned, output) => results.set(planned.id, output.result),
  };
  return { tools, log, results };
}

test('safe calls run together, others alone and in order; every call gets one result', async () => {
  const { tools, log, results } = runner();
  await runToolUses([call('r1', true), call('r2', true), call('b1', false), call('r3', true)], tools);
  expect(log).toEqual([
    'batch r1,r2',
    'start r1',
    'start r2',
    'end r1',
    'end r2',
    'batch b1',
    'start b1',
    'end b1',
    'batch r3',
    'start r3',
    'end r3',
  ]);
  expect([...results.keys()]).toEqual(['r1', 'r2', 'b1', 'r3']);
});

test('a failing call whose tool says so cancels the batches after it, not the calls beside it', async () => {
  const { tools, log, results } = runner({ failing: ['b1', 'r1'] });
  await runToolUses(
    [call('r1', true), call('b1', false, { cancelsLaterCallsOnError: true }), call('r2', true), call('b2', false)],
    tools,
  );
  expect(log).not.toContain('start r2');
  expect(results.get('r1')!.content).toEqual({ text: 'ran r1' });
  expect(results.get('r2')!.content).toEqual({
    text: '<tool_use_error>Cancelled: parallel tool call Bash b1 errored, so this call was not run.</tool_use_error>',
  });
  expect(results.get('b2')!.isError).toBe(true);
});

test('a denied or unanswered call is not run; an approval with feedback goes to the tool activity', async () => {
  const { tools, log, results } = runner({
    answers: {
      b1: { decision: 'deny', feedback: 'keep it' },
      b2: { decision: 'timeout' },
      b3: { decision: 'allow', feedback: 'be careful' },
    },
  });
  await runToolUses([call('b1', false), call('b2', false), call('b3', false)], tools);
  expect(log.filter((line) => line.startsWith('start'))).toEqual(['start b3 (approved) (feedback: be careful)']);
  expect(results.get('b1')).toMatchObject({
    isError: true,
    content: { text: expect.stringContaining('The user denied this tool call, so it was not run. Feedback: keep it') },
  });
  expect(results.get('b2')).toMatchObject({
    isError: true,
    content: { text: expect.stringContaining('not approved in time') },
  });
  expect(results.get('b3')!.content).toEqual({ text: 'ran b3' });
});

test("a call a PreToolUse hook denied is not run, and the hook's reason is its error result", async () => {
  const { tools, log, results } = runner({
    answers: { b1: { decision: 'hook_deny', reason: 'rm -rf is not allowed here' } },
  });
  await runToolUses([call('b1', false, { cancelsLaterCallsOnError: true }), call('b2', false)], tools);
  expect(log.filter((line) => line.startsWith('start'))).toEqual(['start b2']);
  expect(results.get('b1')).toEqual({
    toolUseId: 'b1',
    isError: true,
    toolName: 'Bash',
    content: {
      text: '<tool_use_error>A PreToolUse hook denied this tool call, so it was not run: rm -rf is not allowed here</tool_use_error>',
    },
  });
});

test('summaries name invalid calls by their tool', () => {
  expect(summaryOf(call('r1', true))).toBe('Read r1');
  expect(summaryOf({ id: 'x', name: 'Edit', input: {}, plan: { ok: false, errorText: 'bad' } })).toBe(
    'Edit (invalid input)',
  );
});
