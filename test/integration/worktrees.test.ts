/**
 * Issue 27, writing sub-agents: Agent calls with `isolation: "worktree"` edit in worktrees of
 * their own, in parallel, and what they changed is merged back into the parent's workdir in the
 * order of the calls: disjoint changes exactly, the same line changed by two of them as a
 * conflict (the parent's line kept, the hunk reported), a worker killed during the merge changing
 * nothing in the outcome, and an interrupt merging nothing of an unfinished child.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentResult, TranscriptEntry, TranscriptPage } from '../../src/shared/contract';
import { barrier } from '../support/barrier';
import {
  type FakeReply,
  lastToolResults,
  reply,
  text,
  toolResultText,
  toolUse,
  turnOf,
  taskOf,
} from '../support/fake-anthropic';
import { fileHarness, Harness, killProcess, makeRepo, uniqueId } from '../support/harness';
import { scratchDir } from '../support/paths';

jest.setTimeout(180_000);

const harness = fileHarness();

const writer = (description: string, prompt: string, id: string) =>
  toolUse('Agent', { description, prompt, isolation: 'worktree' }, id);

function merges(entries: TranscriptEntry[]) {
  return entries.flatMap((entry) => (entry.type === 'worktree_merge' ? [entry] : []));
}

/** The activities of a workflow's history whose summaries hold `part`, by their summaries, in the order they were scheduled. */
async function activitySummaries(workflowId: string, part = 'merge Agent'): Promise<string[]> {
  const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const summary = event.userMetadata?.summary?.data;
    const text = summary ? Buffer.from(summary).toString('utf8') : '';
    return event.activityTaskScheduledEventAttributes && text.includes(part) ? [JSON.parse(text) as string] : [];
  });
}

test('three writing sub-agents of one response edit disjoint files in parallel and are merged exactly, in call order', async () => {
  const workdir = makeRepo({
    'a.txt': 'a: old\n',
    'b.txt': 'b: old\n',
    'c.txt': 'c: old\n',
    'check.sh': 'grep -qx "a: new" a.txt && grep -qx "b: new" b.txt && grep -qx "c: new" c.txt\n',
  });
  // Each child's edit is held until all three made theirs (run one after another, they never
  // would); the first child's final answer is held until the other two answered theirs, so the
  // children end in another order than their calls.
  const edits = barrier(3);
  const lastTwo = barrier(2);
  harness.fake.handler = async (request): Promise<FakeReply> => {
    const task = taskOf(request);
    const part = ['part a', 'part b', 'part c'].findIndex((name) => task.includes(name));
    if (part < 0)
      return turnOf(request) === 0
        ? reply(['a', 'b', 'c'].map((name) => writer(`edit ${name}`, `Do part ${name}`, `toolu_${name}`)))
        : reply([text('All three parts done.')]);
    const name = 'abc'[part]!;
    if (turnOf(request) === 0) {
      edits.arrived();
      await edits.all;
      return reply([toolUse('Bash', { command: `sed -i 's/old/new/' ${name}.txt` })]);
    }
    if (part === 0) await lastTwo.all;
    else lastTwo.arrived();
    return reply([text(`${name}.txt edited`)]);
  };
  const handle = await harness.start({ prompt: 'Rename old to new in three files', workdir, toolSummaries: false });
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'All three parts done.' });

  // The parent's files: every child's change, and the repository's own check passes.
  expect(['a', 'b', 'c'].map((name) => readFileSync(join(workdir, `${name}.txt`), 'utf8'))).toEqual([
    'a: new\n',
    'b: new\n',
    'c: new\n',
  ]);
  execFileSync('sh', ['check.sh'], { cwd: workdir });
  const parentCalls = harness.fake.requests.filter((request) => taskOf(request).includes('three files'));
  const answers = lastToolResults(parentCalls.at(-1)!);
  expect(answers.map((block) => block.is_error ?? false)).toEqual([false, false, false]);
  expect(toolResultText(answers[1]!)).toContain('b.txt edited\n\nMerged into your workdir: 1 file (b.txt).');

  // The three calls started together: one snapshot of the parent's files is their fork point.
  expect(await activitySummaries(handle.workflowId, 'fork point')).toEqual(['worktree Agent: edit a · fork point']);
  // Merged in the order of the calls, though the first child ended last; each in its own worktree.
  expect(await activitySummaries(handle.workflowId)).toEqual([
    'merge Agent: edit a · 1 file',
    'merge Agent: edit b · 1 file',
    'merge Agent: edit c · 1 file',
  ]);
  const page = await handle.query<TranscriptPage>('transcript');
  const merged = merges(page.entries);
  expect(merged.map((entry) => [entry.toolUseId, entry.filesMerged, entry.conflicts])).toEqual([
    ['toolu_a', 1, []],
    ['toolu_b', 1, []],
    ['toolu_c', 1, []],
  ]);
  expect(new Set(merged.map((entry) => entry.worktree)).size).toBe(3);
  expect(merged.every((entry) => entry.worktree !== workdir)).toBe(true);
  // Each child was told where it works, and that its changes go back to the parent's workdir.
  const childCalls = harness.fake.requests.filter((request) => taskOf(request).startsWith('Do part'));
  expect(childCalls.length).toBeGreaterThanOrEqual(6);
  for (const request of childCalls) {
    const own = merged.find((entry) => taskOf(request) === `Do part ${entry.toolUseId.slice(-1)}`)!;
    expect(JSON.stringify(request.body.system)).toContain(`You work in a worktree of your own, ${own.worktree}: `);
  }
  // Merged with no conflict, a worktree holds nothing the parent lacks: it is removed.
  expect(merged.map((entry) => [entry.worktreeRemoved, existsSync(entry.worktree)])).toEqual([
    [true, false],
    [true, false],
    [true, false],
  ]);
  // The parent's diff shows the merged changes.
  const diff = await harness.cli(['diff', handle.workflowId]);
  expect(diff.code).toBe(0);
  for (const name of ['a', 'b', 'c']) expect(diff.stdout).toContain(`-${name}: old\n+${name}: new`);
  // A fork of the parent at that turn starts from the merged files.
  const forkDir = join(scratchDir('worktree-fork'), 'copy');
  const fork = await harness.cli([
    'fork',
    handle.workflowId,
    '--turn',
    '1',
    '--workdir',
    forkDir,
    '--no-worker',
    'Go on',
  ]);
  expect(fork.code).toBe(0);
  expect(['a', 'b', 'c'].map((name) => readFileSync(join(forkDir, `${name}.txt`), 'utf8'))).toEqual([
    'a: new\n',
    'b: new\n',
    'c: new\n',
  ]);
});

test('two writing sub-agents change the same line: the first is merged, the second is a conflict with its hunk, the parent keeps its line', async () => {
  const workdir = makeRepo({ 'shared.txt': 'one\ntwo\nthree\n', 'b-only.txt': 'b\n' });
  harness.fake.handler = (request): FakeReply => {
    const task = taskOf(request);
    const side = task.includes('side A') ? 'A' : task.includes('side B') ? 'B' : undefined;
    if (!side)
      return turnOf(request) === 0
        ? reply([writer('side A', 'Do side A', 'toolu_a'), writer('side B', 'Do side B', 'toolu_b')])
        : reply([text('Both sides tried.')]);
    if (turnOf(request) === 0) {
      const also = side === 'B' ? ' && echo "b and more" > b-only.txt' : '';
      return reply([toolUse('Bash', { command: `sed -i 's/^two$/two by ${side}/' shared.txt${also}` })]);
    }
    return reply([text(`side ${side} done`)]);
  };
  const handle = await harness.start({ prompt: 'Two sides of one line', workdir, toolSummaries: false });
  expect(await handle.result()).toMatchObject({ reason: 'completed' });

  expect(readFileSync(join(workdir, 'shared.txt'), 'utf8')).toBe('one\ntwo by A\nthree\n');
  expect(readFileSync(join(workdir, 'b-only.txt'), 'utf8')).toBe('b and more\n');
  const parentCalls = harness.fake.requests.filter((request) => taskOf(request).includes('Two sides'));
  const [first, second] = lastToolResults(parentCalls.at(-1)!).map(toolResultText);
  expect(first).toContain('Merged into your workdir: 1 file (shared.txt).');
  expect(second).toContain('Merged into your workdir: 1 file (b-only.txt).');
  expect(second).toContain('Conflicts in 1 file, whose conflicting parts stay as they are in your workdir:');
  expect(second).toContain(
    [
      '- shared.txt: you and the sub-agent changed the same lines',
      '  at line 2, yours:',
      '    | two by A',
      "  the sub-agent's:",
      '    | two by B',
    ].join('\n'),
  );
  expect(second).toContain(`durable-agent diff ${handle.workflowId}-task-toolu_b`);
  const page = await handle.query<TranscriptPage>('transcript');
  const [clean, conflicting] = merges(page.entries);
  expect([clean, conflicting].map((entry) => [entry!.toolUseId, entry!.filesMerged, entry!.conflicts])).toEqual([
    ['toolu_a', 1, []],
    ['toolu_b', 1, ['shared.txt']],
  ]);
  // The side with a conflict keeps its worktree, its version of the line in it.
  expect(existsSync(clean!.worktree)).toBe(false);
  expect(readFileSync(join(conflicting!.worktree, 'shared.txt'), 'utf8')).toBe('one\ntwo by B\nthree\n');
});

test('a writing sub-agent waiting for a slot forks from the files the ones before it merged', async () => {
  const workdir = makeRepo({ 'README.md': '# repo\n' });
  harness.fake.handler = (request): FakeReply => {
    const task = taskOf(request);
    if (!task.startsWith('Do step'))
      return turnOf(request) === 0
        ? reply([writer('step 1', 'Do step 1', 'toolu_1'), writer('step 2', 'Do step 2', 'toolu_2')])
        : reply([text('Both steps done.')]);
    if (turnOf(request) > 0) return reply([text('done')]);
    const command = task === 'Do step 1' ? 'echo "made by 1" > new.txt' : "sed -i 's/1/1, then 2/' new.txt";
    return reply([toolUse('Bash', { command })]);
  };
  const handle = await harness.start({ prompt: 'Two steps', workdir, toolSummaries: false, maxParallelAgents: 1 });
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
  // Step 2 started once step 1 was merged: its worktree had step 1's file, and its change merges over it.
  expect(readFileSync(join(workdir, 'new.txt'), 'utf8')).toBe('made by 1, then 2\n');
  expect(await activitySummaries(handle.workflowId, 'fork point')).toEqual([
    'worktree Agent: step 1 · fork point',
    'worktree Agent: step 2 · fork point',
  ]);
});

test('an interrupt while writing sub-agents work merges nothing of them', async () => {
  const workdir = makeRepo({ 'a.txt': 'a: old\n', 'b.txt': 'b: old\n' });
  const edited = barrier(2);
  harness.fake.handler = (request): FakeReply => {
    const task = taskOf(request);
    const name = task.includes('part a') ? 'a' : task.includes('part b') ? 'b' : undefined;
    if (!name)
      return turnOf(request) === 0
        ? reply([writer('edit a', 'Do part a', 'toolu_a'), writer('edit b', 'Do part b', 'toolu_b')])
        : reply([text('never asked')]);
    if (turnOf(request) === 0) return reply([toolUse('Bash', { command: `sed -i 's/old/new/' ${name}.txt` })]);
    // Edited, and not done: the model does not answer until the interrupt stops the children.
    edited.arrived();
    return { kind: 'hold', release: new Promise<FakeReply>(() => undefined) };
  };
  const handle = await harness.start({ prompt: 'Edit two files', workdir, toolSummaries: false });
  await edited.all;
  await handle.executeUpdate('interrupt', { args: [{}] });
  expect(await handle.result()).toMatchObject({ reason: 'aborted_tools' });

  expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('a: old\n');
  expect(readFileSync(join(workdir, 'b.txt'), 'utf8')).toBe('b: old\n');
  expect(await activitySummaries(handle.workflowId)).toEqual([]);
  // Their unfinished work stays in their worktrees (noted as each child stopped, in any order).
  const unfinished = merges((await handle.query<TranscriptPage>('transcript')).entries).sort((a, b) =>
    a.toolUseId.localeCompare(b.toolUseId),
  );
  const fileOf = (toolUseId: string) => (toolUseId === 'toolu_a' ? 'a.txt' : 'b.txt');
  expect(
    unfinished.map((entry) => [entry.toolUseId, readFileSync(join(entry.worktree, fileOf(entry.toolUseId)), 'utf8')]),
  ).toEqual([
    ['toolu_a', 'a: new\n'],
    ['toolu_b', 'b: new\n'],
  ]);
});

test('SIGKILL of the worker during a merge changes nothing in the outcome: every file merged once, the same report', async () => {
  const own = await Harness.start(undefined, uniqueId('worktree-kill'));
  try {
    const workdir = makeRepo({ 'keep.txt': 'kept\n' });
    const FILES = 3000;
    own.fake.handler = (request): FakeReply => {
      if (taskOf(request).includes('generate')) {
        return turnOf(request) === 0
          ? reply([
              toolUse('Bash', {
                command: `mkdir gen && for i in $(seq 1 ${FILES}); do echo "file $i" > gen/f$i.txt; done`,
              }),
            ])
          : reply([text('generated')]);
      }
      return turnOf(request) === 0
        ? reply([writer('generate', 'Please generate the files', 'toolu_gen')])
        : reply([text(`parent saw: ${lastToolResults(request).map(toolResultText).join(' | ')}`)]);
    };
    const first = await own.startWorkerProcess();
    const handle = await own.start({ prompt: 'Generate files', workdir, toolSummaries: false });
    // Killed once the merge has written some of the files into the parent's workdir, not all.
    let seen = 0;
    while (seen === 0) {
      seen = filesIn(join(workdir, 'gen'));
      if (seen === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await killProcess(first);
    expect(seen).toBeLessThan(FILES);
    await own.startWorkerProcess();
    const result = (await handle.result()) as AgentResult;
    expect(result.reason).toBe('completed');
    expect(result.finalText).toContain(`generated\n\nMerged into your workdir: ${FILES} files (gen/f1.txt,`);
    expect(filesIn(join(workdir, 'gen'))).toBe(FILES);
    expect(readFileSync(join(workdir, 'gen', 'f1234.txt'), 'utf8')).toBe('file 1234\n');
    expect(readFileSync(join(workdir, 'keep.txt'), 'utf8')).toBe('kept\n');
  } finally {
    await own.stop();
  }
});

function filesIn(directory: string): number {
  try {
    return readdirSync(directory).length;
  } catch {
    return 0;
  }
}
