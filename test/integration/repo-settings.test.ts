/**
 * Real repositories' `.claude/settings.json` (the corpus in test/fixtures/claude-settings) never
 * fail a session: trusted, every hook that can run runs and the transcript's `session` entry and
 * the `state` query list the rest; untrusted, the file is only noted, even when it is not JSON.
 */
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState, TranscriptEntry } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import { byTurn, reply, requestText, text, toolUse } from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();
const corpusFile = (name: string) => readFileSync(join(__dirname, '../fixtures/claude-settings', name), 'utf8');

async function sessionEntry(handle: WorkflowHandle) {
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 500 });
  return entries.find((entry: TranscriptEntry) => entry.type === 'session');
}

test("a trusted corpus file's PostToolUse hook runs; what cannot run is in the transcript and state", async () => {
  // SoluGenAI/claude-code-course: a formatter script after Edit, MultiEdit and Write, timeouts of 10000 s, permissions.
  const workdir = makeRepo({
    '.claude/settings.json': corpusFile('solugenai-claude-code-course.json'),
    '.claude/hooks/ruff-format.sh': '#!/bin/sh\necho formatted >> .formatter-ran\n',
  });
  chmodSync(join(workdir, '.claude/hooks/ruff-format.sh'), 0o755);
  const write = toolUse('Write', { file_path: 'a.py', content: 'x = 1\n' });
  harness.fake.handler = byTurn([reply([write]), reply([text('Done.')])]);
  const handle = await harness.start({ prompt: 'add a.py', workdir, trustRepoHooks: true, toolSummaries: false });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');

  expect(readFileSync(join(workdir, '.formatter-ran'), 'utf8')).toBe('formatted\n');
  const clamped = { file: '.claude/settings.json', reason: 'over 600 s: the hook runs with 600 s' };
  // Its permissions (ask rules for git commands) are read and apply (docs/permissions.md): not skipped.
  const skippedSettings = [
    { ...clamped, path: 'hooks.PostToolUse.0.hooks.0.timeout' },
    { ...clamped, path: 'hooks.PostToolUse.1.hooks.0.timeout' },
    { ...clamped, path: 'hooks.PostToolUse.2.hooks.0.timeout' },
  ];
  expect(await sessionEntry(handle)).toMatchObject({ skippedSettings });
  expect((await sessionEntry(handle)) as object).not.toHaveProperty('skippedRepoHooks');
  expect((await handle.query<AgentState>('state')).skippedSettings).toEqual(skippedSettings);
});

test('trusted, a corpus file of prompt hooks, async fields, other events: it completes, noting each', async () => {
  // cautiouskurns/Game-Template: a prompt-type Stop hook, SessionStart and SubagentStart, async PostToolUse hooks.
  const workdir = makeRepo({ '.claude/settings.json': corpusFile('cautiouskurns-game-template.json') });
  // The small model judges the Stop prompt hook (the repository's prompt asks for the older {"decision"} shape).
  harness.fake.handler = (request) =>
    reply([text(request.body.model === 'claude-haiku-5-5' ? '{"decision": "allow"}' : 'Nothing to do.')]);
  const handle = await harness.start({ prompt: 'look around', workdir, trustRepoHooks: true, toolSummaries: false });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');

  const paths = ((await handle.query<AgentState>('state')).skippedSettings ?? []).map((skipped) => skipped.path);
  // SessionStart and SubagentStart run since issue 25 (their scripts are not in this repository: reported).
  expect(paths).toEqual([
    'hooks.PostToolUse.1.hooks.0.async',
    'hooks.PostToolUse.1.hooks.1.async',
    'hooks.PostToolUse.1.hooks.2.async',
    'hooks.PostToolUse.2.hooks.0.async',
  ]);
  const judged = harness.fake.requests.filter((request) => request.body.model === 'claude-haiku-5-5');
  expect(judged).toHaveLength(1);
  expect(requestText(judged[0]!)).toContain('You are a workflow compliance checker');
  expect(requestText(judged[0]!)).toContain('"hook_event_name":"Stop"');
});

test('untrusted, a malformed settings file and a corpus file are only noted as skipped; none of it runs', async () => {
  const malformed = makeRepo({
    '.claude/settings.json': '{"hooks": {"Stop": [{"command": "touch ran"',
    '.agent/settings.json': '{"stopHooks": [{"command": "touch ran"}]}',
  });
  harness.fake.handler = () => reply([text('ok')]);
  const first = await harness.start({ prompt: 'go', workdir: malformed, toolSummaries: false });
  expect(((await first.result()) as AgentResult).reason).toBe('completed');
  expect(existsSync(join(malformed, 'ran'))).toBe(false);
  expect(await sessionEntry(first)).toMatchObject({
    skippedRepoHooks: ['.agent/settings.json (1 stop hook)', '.claude/settings.json (not valid JSON)'],
  });
  expect((await first.query<AgentState>('state')).skippedSettings).toBeUndefined();

  const corpus = makeRepo({ '.claude/settings.json': corpusFile('disler-claude-code-hooks-mastery.json') });
  const second = await harness.start({ prompt: 'go', workdir: corpus, toolSummaries: false });
  expect(((await second.result()) as AgentResult).reason).toBe('completed');
  expect(await sessionEntry(second)).toMatchObject({
    skippedRepoHooks: [
      '.claude/settings.json (1 stop hook, 7 tool hooks)',
      // Its allow rules are not used untrusted (deny and ask rules would be).
      '.claude/settings.json (permissions: allow rules, defaultMode)',
    ],
  });
  expect((await sessionEntry(second)) as object).not.toHaveProperty('skippedSettings');
});
