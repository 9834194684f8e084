/** ExitPlanMode: Claude Code's loose object (allowedPrompts, and whatever else, `plan` included). */
import { TOOLS } from '../../../../src/activities/tools/registry';
import { inputError, toolWorkdir } from '../../../support/tool-workdir';

test('any object is accepted (allowedPrompts checked); its plan says the workflow waits for a person', async () => {
  expect(inputError('ExitPlanMode', {})).toBeUndefined();
  expect(inputError('ExitPlanMode', { plan: '1. Edit a.txt' })).toBeUndefined();
  expect(inputError('ExitPlanMode', { allowedPrompts: [{ tool: 'Bash', prompt: 'run tests' }] })).toBeUndefined();
  expect(inputError('ExitPlanMode', { allowedPrompts: [{ tool: 'Write', prompt: 'x' }] })).toContain(
    '`allowedPrompts.0.tool`',
  );
  const planned = await TOOLS.plan(
    { id: 'toolu_1', name: 'ExitPlanMode', input: { plan: 'p' } },
    toolWorkdir('exit').path,
    ['ExitPlanMode'],
  );
  expect(planned.plan).toMatchObject({ ok: true, rules: { sessionControl: 'exit_plan_mode' } });
  expect(planned.plan.ok && planned.plan.rules?.needsApproval).toBeFalsy();
});
