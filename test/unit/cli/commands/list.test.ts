import type { Client } from '@temporalio/client';
import { parseListArguments } from '../../../../src/cli/commands/list';
import { SESSION_STATUSES } from '../../../../src/cli/session-status';
import { printList } from '../../../../src/cli/status-report';
import { captured, cli, withUsage } from '../cli-output';

test('twenty sessions of every status by default; --status, --limit and --json as given', async () => {
  expect(await parseListArguments([])).toEqual({ limit: 20, json: false });
  expect(await parseListArguments(['--status', 'waiting_approval', '--limit', '5', '--json'])).toEqual({
    status: 'waiting_approval',
    limit: 5,
    json: true,
  });
});

test('a limit that is not a whole number above 0 is a usage error (exit 2)', async () => {
  for (const limit of ['0', 'x', '1.5'])
    expect(await cli(['list', '--limit', limit])).toEqual({
      code: 2,
      stdout: '',
      stderr: withUsage(`--limit takes a whole number above 0, not ${limit}`),
    });
});

test('a status that does not exist names those that do, without the usage (exit 2)', async () => {
  expect(await cli(['list', '--status', 'bogus'])).toEqual({
    code: 2,
    stdout: '',
    stderr: `durable-agent: --status bogus is not a session status; use one of: ${SESSION_STATUSES.join(', ')}\n`,
  });
});

test('a positional argument fails with its message only (exit 1), as it always has', async () => {
  expect(await cli(['list', 'extra'])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining("Unexpected argument 'extra'"),
  });
});

/** A client whose visibility list has no sessions; `queries` collects what it was asked. */
function emptyVisibility(queries: string[]): Client {
  return {
    workflow: {
      list: ({ query }: { query: string }) => {
        queries.push(query);
        return (async function* () {})();
      },
    },
  } as unknown as Client;
}

test('no sessions: a sentence for people, an empty array for scripts; the status is in the query', async () => {
  const queries: string[] = [];
  const text = await captured(() => printList(emptyVisibility(queries), { limit: 20, json: false }));
  expect(text).toEqual({ result: 0, stdout: 'No sessions found.\n', stderr: '' });
  const json = await captured(() => printList(emptyVisibility(queries), { status: 'finished', limit: 20, json: true }));
  expect(json).toEqual({ result: 0, stdout: '[]\n', stderr: '' });
  expect(queries).toEqual([
    "WorkflowType='agentWorkflow'",
    "WorkflowType='agentWorkflow' AND ExecutionStatus='Completed'",
  ]);
});
