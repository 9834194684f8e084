/** TaskStop: offered with background commands (issue 26); the workflow carries it out (`background: 'stop'`). */
import { TOOLS } from '../../../../src/activities/tools/registry';
import { taskStopTool } from '../../../../src/activities/tools/task-stop';

test('offered to the model, its plan says the workflow stops a background command', async () => {
  expect(TOOLS.apiDefinitions().map((tool) => tool.name)).toContain('TaskStop');
  const planned = await TOOLS.plan({ id: 'toolu_1', name: 'TaskStop', input: { task_id: 'b1' } }, '/tmp', ['TaskStop']);
  expect(planned.plan).toMatchObject({ ok: true, summary: 'TaskStop b1', rules: { background: 'stop' } });
});

test("its input is Claude Code's (task_id, or the deprecated shell_id)", () => {
  expect(taskStopTool.schema.safeParse({ task_id: 'b1' }).success).toBe(true);
  expect(taskStopTool.schema.safeParse({ shell_id: 'b1' }).success).toBe(true);
  expect(taskStopTool.schema.safeParse({ pid: 1 }).success).toBe(false);
});
