/**
 * The CLI's refusals: a turn a session never reached, a status that does not exist, and commands
 * to a session that has finished or never existed end with a sentence and a non-zero exit.
 */
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { fileHarness, makeRepo, uniqueId } from '../support/harness';
import { SESSION_STATUSES } from '../../src/cli/session-status';

jest.setTimeout(180_000);

const harness = fileHarness();

test('diff of a turn the session never reached and list of an unknown status fail with what exists', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('Write', { file_path: 'a.txt', content: 'a\n' })]),
    reply([text('Wrote a.txt.')]),
  ]);
  const handle = await harness.start({ prompt: 'write a.txt', workdir: makeRepo({}), toolSummaries: false });
  await handle.result();

  const [missingTurn, existingTurn, bogusStatus] = await Promise.all([
    harness.cli(['diff', handle.workflowId, '--turn', '99']),
    harness.cli(['diff', handle.workflowId, '--turn', '1', '--stat']),
    harness.cli(['list', '--status', 'bogus']),
  ]);
  expect(missingTurn).toMatchObject({ code: 1, stdout: '' });
  expect(missingTurn.stderr).toContain(`turn 99 does not exist: ${handle.workflowId} ended after turn 2`);
  expect(existingTurn).toMatchObject({ code: 0, stdout: expect.stringMatching(/a\.txt \| +1 \+/) });
  expect(bogusStatus).toMatchObject({ code: 2, stdout: '' });
  expect(bogusStatus.stderr).toContain(
    `--status bogus is not a session status; use one of: ${SESSION_STATUSES.join(', ')}`,
  );
});

test('send, end, approve, interrupt and rewind to a finished session say how it finished and what to do instead', async () => {
  harness.fake.handler = byTurn([reply([text('Done.')])]);
  const completed = await harness.start({ prompt: 'say done', workdir: makeRepo({}) });
  await completed.result();
  const interactive = await harness.start({ prompt: 'wait for me', workdir: makeRepo({}), interactive: true });
  await interactive.terminate('the test stops it');

  const id = completed.workflowId;
  const results = await Promise.all([
    harness.cli(['send', id, 'one', 'more', 'thing']),
    harness.cli(['end', id]),
    harness.cli(['approve', id, 'toolu_x']),
    harness.cli(['interrupt', id]),
    harness.cli(['rewind', id, '--turn', '0']),
  ]);
  for (const result of results) {
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(
      new RegExp(
        `^durable-agent: ${id} has finished: it completed at \\S+, so it takes no more messages or commands\\.`,
      ),
    );
    expect(result.stderr).toContain(
      `durable-agent fork ${id} --turn N --workdir <new dir> "<instruction>", or start a new session with  durable-agent run`,
    );
  }
  const terminated = await harness.cli(['send', interactive.workflowId, 'hello']);
  expect(terminated).toMatchObject({
    code: 1,
    stderr: expect.stringContaining(`${interactive.workflowId} has finished: it was terminated at`),
  });
  const unknown = uniqueId('no-such-session');
  expect(await harness.cli(['send', unknown, 'hello'])).toMatchObject({
    code: 1,
    stderr: `durable-agent: there is no session ${unknown} (durable-agent list shows the sessions)\n`,
  });
});
