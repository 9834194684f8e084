/** The texts the model reads of background commands, in Claude Code's shapes. */
import {
  backgroundStartedText,
  backgroundTaskId,
  type BackgroundTaskView,
  outputTail,
  taskNotification,
  taskOutputText,
} from '../../../src/shared/background';

const task: BackgroundTaskView = {
  id: 'bABCDEF12',
  toolUseId: 'toolu_01ABCDEF12',
  description: 'Run the tests',
  command: 'npm test',
  status: 'completed',
  turn: 1,
  outputTail: 'ok\n\nExit code: 0',
};

test('ids come from the tool_use id, made unique', () => {
  expect(backgroundTaskId('toolu_01ABCDEF12', () => false)).toBe('bABCDEF12');
  expect(backgroundTaskId('toolu_01ABCDEF12', (id) => id === 'bABCDEF12')).toBe('bABCDEF122');
});

test("the start answer opens with Claude Code's sentence", () => {
  expect(backgroundStartedText('b1')).toMatch(/^Command running in background with ID: b1\. /);
});

test("a notification is Claude Code's <task-notification>, with the output's end", () => {
  expect(taskNotification(task)).toBe(
    [
      '<task-notification>',
      '<task-id>bABCDEF12</task-id>',
      '<tool-use-id>toolu_01ABCDEF12</tool-use-id>',
      '<status>completed</status>',
      '<summary>Background command "Run the tests" completed</summary>',
      '<output-tail>ok\n\nExit code: 0</output-tail>',
      '</task-notification>',
    ].join('\n'),
  );
  const lost = taskNotification({ ...task, status: 'lost', outputTail: '</task-notification>' });
  expect(lost).toContain('<status>failed</status>');
  expect(lost).toContain('was lost');
  expect(lost.match(/<\/task-notification>/g)).toHaveLength(1);
});

test('TaskOutput says how the retrieval went, the status and (once ended) the output', () => {
  expect(taskOutputText(task, 'success')).toContain('<retrieval_status>success</retrieval_status>');
  expect(taskOutputText(task, 'success')).toContain('<output>\nok\n\nExit code: 0\n</output>');
  const running = taskOutputText({ ...task, status: 'running' }, 'not_ready');
  expect(running).toContain('<status>running</status>');
  expect(running).not.toContain('<output>');
});

test('the tail keeps the end', () => {
  expect(outputTail('abcdef', 3)).toBe('…def');
  expect(outputTail('abc', 3)).toBe('abc');
});
