/** EnterPlanMode: Claude Code's `{}`; the workflow carries it out (rules.sessionControl). */
import { enterPlanModeTool } from '../../../../src/activities/tools/enter-plan-mode';
import { TOOLS } from '../../../../src/activities/tools/registry';
import { inputError, toolWorkdir } from '../../../support/tool-workdir';

test('takes nothing; its plan tells the workflow to switch to plan mode, with no approval', async () => {
  expect(inputError('EnterPlanMode', {})).toBeUndefined();
  expect(inputError('EnterPlanMode', { plan: 'x' })).toContain('unexpected parameter(s): plan');
  const planned = await TOOLS.plan({ id: 'toolu_1', name: 'EnterPlanMode', input: {} }, toolWorkdir('enter').path, [
    'EnterPlanMode',
  ]);
  expect(planned.plan).toEqual({
    ok: true,
    concurrencySafe: false,
    summary: 'EnterPlanMode',
    rules: { labelsItself: true, sessionControl: 'enter_plan_mode' },
  });
  expect((await enterPlanModeTool.execute({}, toolWorkdir('enter').context())).text).toMatch(/^Entered plan mode\./);
});
