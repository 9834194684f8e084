/** Plan mode's refusal and the calls that need no wait, over a stand-in session (the waits are in the integration test). */
import type { PlannedToolUse } from '../../../../src/shared/activity-io';
import type { PermissionMode } from '../../../../src/shared/permission-modes';
import { isPersonTool, planModeRefusal, runPersonTool } from '../../../../src/workflows/turn/person-tools';

const call = (name: string, rules: Record<string, unknown>): PlannedToolUse => ({
  id: `toolu_${name}`,
  name,
  input: {},
  plan: { ok: true, concurrencySafe: false, summary: name, rules },
});

function session(mode: PermissionMode) {
  const notes: unknown[] = [];
  const fake = {
    mode,
    notes,
    permissionMode: () => fake.mode,
    setPermissionMode: (next: PermissionMode, detail: string) => {
      fake.mode = next;
      notes.push({ mode: next, detail });
    },
  };
  return fake;
}

test('in plan mode, a call that needs approval is refused with why; read-only calls and other modes pass', () => {
  const edit = call('Edit', { needsApproval: true, subject: 'a.txt', changesFiles: true });
  expect(planModeRefusal(session('plan'), edit)).toEqual({
    decision: 'mode_deny',
    reason: expect.stringContaining('Plan mode is active: Edit is not a read-only tool, so it was not run.'),
  });
  expect(planModeRefusal(session('plan'), call('Read', { readsFile: true }))).toBeNull();
  expect(planModeRefusal(session('default'), edit)).toBeNull();
  expect(planModeRefusal(session('bypassPermissions'), edit)).toBeNull();
});

test('EnterPlanMode switches to plan; ExitPlanMode outside plan mode is an is_error result and changes nothing', async () => {
  const people = session('bypassPermissions');
  const enter = call('EnterPlanMode', { sessionControl: 'enter_plan_mode' });
  expect(isPersonTool(enter)).toBe(true);
  expect(isPersonTool(call('Read', {}))).toBe(false);
  const entered = await runPersonTool(people as never, enter);
  expect(entered.result).toMatchObject({
    isError: false,
    content: { text: expect.stringMatching(/^Entered plan mode/) },
  });
  expect(people.mode).toBe('plan');
  expect(people.notes).toEqual([{ mode: 'plan', detail: 'the model entered plan mode' }]);

  const outside = session('default');
  const exited = await runPersonTool(outside as never, call('ExitPlanMode', { sessionControl: 'exit_plan_mode' }));
  expect(exited.result.isError).toBe(true);
  expect(JSON.stringify(exited.result.content)).toContain('You are not in plan mode.');
  expect(outside.mode).toBe('default');
});
