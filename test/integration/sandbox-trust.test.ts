/**
 * What a person decides stays theirs: allow rules approve only the commands they name, the
 * repository's settings files change only with a person's approval, repository hooks run only
 * when trusted, and a workdir must be one a session may own.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState, TranscriptEntry } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { fileHarness, Harness, makeRepo } from '../support/harness';
import { scratchDir } from '../support/paths';

jest.setTimeout(120_000);

const harness = fileHarness();

/** Answers every approval the session asks for with `decide`, until it ends; returns the ids asked about. */
async function answerApprovals(
  handle: WorkflowHandle,
  decide: (toolUseId: string) => 'allow' | 'deny',
): Promise<string[]> {
  const asked: string[] = [];
  for (;;) {
    const state = await handle.query<AgentState>('state');
    if (state.status === 'finished') return asked;
    for (const pending of state.pendingApprovals) {
      if (asked.includes(pending.toolUseId)) continue;
      asked.push(pending.toolUseId);
      await handle.executeUpdate('approveTool', {
        args: [{ toolUseId: pending.toolUseId, decision: decide(pending.toolUseId) }],
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('Bash(echo tests:*) approves that command only: chains, substitutions and backgrounding wait for a person', async () => {
  const workdir = makeRepo({ 'README.md': 'x\n' });
  const calls = [
    toolUse('Bash', { command: 'echo tests ok > ran-plain' }, 'toolu_plain'),
    toolUse('Bash', { command: 'echo tests && touch pwned-chain' }, 'toolu_chain'),
    toolUse('Bash', { command: 'echo tests $(touch pwned-substitution)' }, 'toolu_substitution'),
    toolUse('Bash', { command: 'echo tests <(touch pwned-process)' }, 'toolu_process'),
    toolUse('Bash', { command: 'echo tests & touch pwned-background' }, 'toolu_background'),
    toolUse('Bash', { command: 'echo tests > ../pwned-outside' }, 'toolu_outside'),
    toolUse('Write', { file_path: '.agent/settings.json', content: '{"stopHooks":[]}' }, 'toolu_settings'),
  ];
  harness.fake.handler = byTurn([...calls.map((call) => reply([call])), reply([text('done')])]);
  const handle = await harness.start({
    prompt: 'run the tests',
    workdir,
    permissionMode: 'ask',
    allowRules: ['Bash(echo tests:*)', 'Write'],
  });
  const asked = await answerApprovals(handle, (id) => (id === 'toolu_settings' ? 'allow' : 'deny'));
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  expect(asked).toEqual([
    'toolu_chain',
    'toolu_substitution',
    'toolu_process',
    'toolu_background',
    'toolu_outside',
    'toolu_settings',
  ]);
  expect(readFileSync(join(workdir, 'ran-plain'), 'utf8')).toBe('tests ok\n');
  for (const name of ['pwned-chain', 'pwned-substitution', 'pwned-process', 'pwned-background'])
    expect(existsSync(join(workdir, name))).toBe(false);
  expect(existsSync(join(workdir, '..', 'pwned-outside'))).toBe(false);
  // The one approved by a person, although the Write rule matched it: settings always ask.
  expect(readFileSync(join(workdir, '.agent/settings.json'), 'utf8')).toBe('{"stopHooks":[]}');
});

test('repository hooks run only when the input trusts them, inside the sandbox', async () => {
  const settings = {
    '.claude/settings.json': JSON.stringify({
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'id -u > hook-ran' }] }] },
    }),
  };
  harness.fake.handler = () => reply([text('done')]);
  const untrusted = makeRepo(settings);
  const skipped = await harness.start({ prompt: 'go', workdir: untrusted });
  await skipped.result();
  expect(existsSync(join(untrusted, 'hook-ran'))).toBe(false);
  const entries: TranscriptEntry[] = (await skipped.query(transcriptQuery, {})).entries;
  expect(entries.find((entry) => entry.type === 'session')).toMatchObject({
    skippedRepoHooks: ['.claude/settings.json (1 stop hook)'],
  });

  const trusted = makeRepo(settings);
  await (await harness.start({ prompt: 'go', workdir: trusted, trustRepoHooks: true })).result();
  const sandbox = (await skipped.query<AgentState>('state')).sandbox;
  // Sandboxed, the hook runs as the unprivileged user; unconfined, as the worker.
  expect(readFileSync(join(trusted, 'hook-ran'), 'utf8').trim()).toBe(
    sandbox === 'bwrap' ? '1000' : String(process.getuid!()),
  );
});

async function workdirFailure(h: Harness, workdir: string): Promise<string> {
  const failure = (await h.run({ prompt: 'hi', workdir }).catch((error: unknown) => error)) as WorkflowFailedError;
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  const cause = failure.cause!.cause as ApplicationFailure;
  expect(cause.type).toBe('InvalidWorkdir');
  expect(cause.nonRetryable).toBe(true);
  return cause.message;
}

test('a workdir is never /, a system directory or the content store, and lies inside AGENT_WORKSPACE_ROOTS when set', async () => {
  expect(await workdirFailure(harness, '/')).toMatch(/\/ is a system directory/);
  expect(await workdirFailure(harness, '/etc')).toMatch(/\/etc is a system directory/);
  expect(await workdirFailure(harness, harness.contentDir)).toMatch(/inside the content store/);

  const rooted = await Harness.start();
  try {
    const root = scratchDir('workspaces');
    await rooted.startWorker({ workspaceRoots: [root] });
    expect(await workdirFailure(rooted, makeRepo({}))).toMatch(
      /is not inside the workspace roots \(AGENT_WORKSPACE_ROOTS: /,
    );
    rooted.fake.handler = () => reply([text('done')]);
    const inside = join(root, 'repo');
    mkdirSync(inside);
    expect((await rooted.run({ prompt: 'hi', workdir: inside })).reason).toBe('completed');
  } finally {
    await rooted.stop();
  }
});
