/**
 * The worktree activities on real files, a real content store and a real journal: a child's
 * worktree made (and a half-made one completed), and its merge back into the parent's workdir
 * exactly once, whatever the retries and wherever a crash fell.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWorktreeActivities, mergeCallKey } from '../../../../src/activities/workspace/worktrees';
import { getJson } from '../../../../src/store/content-store';
import { LocalEffectJournal, type EffectJournal, type EffectRecord } from '../../../../src/store/effect-journal';
import { takeSnapshot } from '../../../../src/snapshots/snapshot';
import { worktreeName, type MergeWorktreeInput, type MergeWorktreeOutput } from '../../../../src/shared/worktrees';
import { listing, workspace, type Workspace } from '../../snapshots/fixture';
import { scratchDir } from '../../../support/paths';

/** An activity call in a mock activity context (heartbeats, attempt 1). */
const run = <I, O>(activity: (input: I) => Promise<O>, input: I): Promise<O> =>
  new MockActivityEnvironment().run(activity, input) as Promise<O>;

const text = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}\n`).join('');

let ws: Workspace;
let cloneRoot: string;
let journal: LocalEffectJournal;
let baseRef: string;

beforeEach(async () => {
  ws = workspace('worktrees');
  cloneRoot = scratchDir('worktree-root');
  journal = new LocalEffectJournal(scratchDir('journal'));
  ws.write('.gitignore', 'node_modules/\n');
  ws.write('src/a.ts', text(10));
  ws.write('src/b.ts', 'beta\n');
  ws.write('src/c.ts', 'gamma\n');
  ws.write('docs/old.md', 'old\n');
  ws.write('node_modules/pkg/index.js', 'ignored\n');
  ws.link('current', 'src/a.ts');
  baseRef = (await takeSnapshot(ws.store, ws.workdir)).ref;
});

const activities = (journalToUse: EffectJournal = journal) =>
  createWorktreeActivities({ store: ws.store, journal: journalToUse, cloneRoot, workspaceRoots: [], hostId: 'host-a' });

describe('createWorktree', () => {
  test("the child's worktree holds the parent's snapshot, without what the snapshot leaves out", async () => {
    cloneRoot = join(cloneRoot, 'not', 'made', 'yet');
    const { createWorktree } = activities();
    const made = await run(createWorktree, { name: worktreeName('session/1/agent-1'), ref: baseRef });
    expect(made).toEqual({ workdir: join(cloneRoot, worktreeName('session/1/agent-1')), host: 'host-a' });
    const { 'node_modules/pkg/index.js': ignored, ...tracked } = ws.listing();
    expect(ignored).toBe('ignored\n');
    expect(listing(made.workdir)).toEqual(tracked);
  });

  test('a retry completes a half-made worktree', async () => {
    const { createWorktree } = activities();
    const name = worktreeName('child');
    // What a killed attempt left: some files written, one half-written.
    mkdirSync(join(cloneRoot, name, 'src'), { recursive: true });
    writeFileSync(join(cloneRoot, name, 'src/a.ts'), text(10));
    writeFileSync(join(cloneRoot, name, 'src/b.ts'), 'be');
    const made = await run(createWorktree, { name, ref: baseRef });
    const { 'node_modules/pkg/index.js': _, ...tracked } = ws.listing();
    expect(listing(made.workdir)).toEqual(tracked);
    expect(await run(createWorktree, { name, ref: baseRef })).toEqual(made);
  });

  test('a name that is not one safe directory name is refused for good', async () => {
    const { createWorktree } = activities();
    for (const name of ['../escape', '.', '', 'a/b'])
      await expect(run(createWorktree, { name, ref: baseRef })).rejects.toMatchObject({
        nonRetryable: true,
        type: 'InvalidWorkdir',
      });
    expect(existsSync(join(cloneRoot, '..', 'escape'))).toBe(false);
  });
});

/**
 * A child that worked in its worktree (a.ts's line 8, c.ts, a new file, docs/old.md deleted) and
 * a parent that went on meanwhile (a.ts's line 2, c.ts the same line differently, a file of its own).
 */
async function childAndParent(): Promise<MergeWorktreeInput> {
  const { createWorktree } = activities();
  const { workdir: worktree } = await run(createWorktree, {
    name: worktreeName('parent-session/agent-1'),
    ref: baseRef,
  });
  writeFileSync(join(worktree, 'src/a.ts'), text(10).replace('line 8\n', 'line 8 child\n'));
  writeFileSync(join(worktree, 'src/c.ts'), 'gamma child\n');
  mkdirSync(join(worktree, 'src/new'));
  writeFileSync(join(worktree, 'src/new/d.ts'), 'delta\n');
  rmSync(join(worktree, 'docs/old.md'));
  ws.write('src/a.ts', text(10).replace('line 2\n', 'line 2 parent\n'), { recent: true });
  ws.write('src/c.ts', 'gamma parent\n', { recent: true });
  ws.write('parent.txt', 'mine\n', { recent: true });
  const parentRef = (await takeSnapshot(ws.store, ws.workdir, baseRef)).ref;
  return {
    sessionId: 'parent-session',
    key: 'parent-session/agent-1',
    workdir: ws.workdir,
    parentRef,
    worktree,
    baseRef,
  };
}

/** The parent's files once the child's are merged in. */
const MERGED = {
  '.gitignore': 'node_modules/\n',
  current: '-> src/a.ts',
  'node_modules/pkg/index.js': 'ignored\n',
  'parent.txt': 'mine\n',
  'src/a.ts': text(10).replace('line 2\n', 'line 2 parent\n').replace('line 8\n', 'line 8 child\n'),
  'src/b.ts': 'beta\n',
  'src/c.ts': 'gamma parent\n',
  'src/new/d.ts': 'delta\n',
};

function expectMergedOutcome(outcome: MergeWorktreeOutput): void {
  expect(outcome).toMatchObject({
    merged: ['docs/old.md', 'src/a.ts', 'src/new/d.ts'],
    filesMerged: 3,
    conflicts: [
      {
        path: 'src/c.ts',
        why: 'both_changed',
        hunks: [{ line: 1, base: ['gamma'], ours: ['gamma parent'], theirs: ['gamma child'] }],
      },
    ],
    conflictCount: 1,
    snapshot: { filesChanged: 3 },
  });
  expect(ws.listing()).toEqual(MERGED);
}

describe('mergeWorktree', () => {
  test("merges the child's changes, reports the conflict, and snapshots the parent", async () => {
    const input = await childAndParent();
    const { mergeWorktree } = activities();
    const outcome = await run(mergeWorktree, input);
    expectMergedOutcome(outcome);
    expect(outcome.snapshot.ref).toBe((await takeSnapshot(ws.store, ws.workdir)).ref);
    expect(outcome.childRef).toBe((await takeSnapshot(ws.store, input.worktree)).ref);
    // The child's version of the conflicting file is at hand: its worktree, and its changes as a patch.
    expect(outcome.worktreeRemoved).toBeUndefined();
    expect(readFileSync(join(input.worktree, 'src/c.ts'), 'utf8')).toBe('gamma child\n');
    const patch = await ws.store.get(outcome.patchRef!);
    expect(patch).toContain('diff --git a/src/c.ts b/src/c.ts');
    expect(patch).toContain('+gamma child');
  });

  test("from the child's last snapshot, the worktree is still merged as it is now", async () => {
    const input = await childAndParent();
    const childRef = (await takeSnapshot(ws.store, input.worktree, baseRef)).ref;
    // Changed after the child's last snapshot (its Stop hook, say): part of what it left.
    writeFileSync(join(input.worktree, 'src/b.ts'), 'beta child\n');
    const outcome = await run(activities().mergeWorktree, { ...input, childRef });
    expect(outcome.merged).toEqual(['docs/old.md', 'src/a.ts', 'src/b.ts', 'src/new/d.ts']);
    expect(ws.listing()).toEqual({ ...MERGED, 'src/b.ts': 'beta child\n' });
    expect(outcome.childRef).toBe((await takeSnapshot(ws.store, input.worktree)).ref);
  });

  test('a merge without conflicts has no patch, and removes the worktree; a retry answers the same', async () => {
    const input = await childAndParent();
    ws.write('src/c.ts', 'gamma\n', { recent: true });
    const outcome = await run(activities().mergeWorktree, { ...input, parentRef: undefined });
    expect(outcome.conflicts).toEqual([]);
    expect(outcome.patchRef).toBeUndefined();
    expect(ws.read('src/c.ts')).toBe('gamma child\n');
    expect(outcome.worktreeRemoved).toBe(true);
    expect(existsSync(input.worktree)).toBe(false);
    expect(await run(activities().mergeWorktree, { ...input, parentRef: undefined })).toEqual(outcome);
  });

  test('a worktree holding files its snapshots leave out (ignored) is merged and kept, those files with it', async () => {
    const input = await childAndParent();
    ws.write('src/c.ts', 'gamma\n', { recent: true });
    mkdirSync(join(input.worktree, 'node_modules', 'built'), { recursive: true });
    writeFileSync(join(input.worktree, 'node_modules', 'built', 'index.js'), 'made by the child\n');
    const outcome = await run(activities().mergeWorktree, input);
    expect(outcome).toMatchObject({ filesMerged: 4, conflictCount: 0 });
    expect(outcome.worktreeRemoved).toBeUndefined();
    expect(readFileSync(join(input.worktree, 'node_modules', 'built', 'index.js'), 'utf8')).toBe('made by the child\n');
  });

  test("a worktree not named for its child, or the parent's own workdir, is merged but never removed", async () => {
    const input = await childAndParent();
    ws.write('src/c.ts', 'gamma\n', { recent: true });
    const outcome = await run(activities().mergeWorktree, { ...input, key: 'another-child' });
    expect(outcome).toMatchObject({ filesMerged: 4, conflictCount: 0 });
    expect(outcome.worktreeRemoved).toBeUndefined();
    expect(existsSync(input.worktree)).toBe(true);
  });

  test('a worktree that is not one of the clone root is merged but never removed', async () => {
    const input = await childAndParent();
    ws.write('src/c.ts', 'gamma\n', { recent: true });
    const elsewhere = createWorktreeActivities({
      store: ws.store,
      journal,
      cloneRoot: scratchDir('other-root'),
      workspaceRoots: [],
    });
    const outcome = await run(elsewhere.mergeWorktree, input);
    expect(outcome).toMatchObject({ filesMerged: 4, conflictCount: 0 });
    expect(outcome.worktreeRemoved).toBeUndefined();
    expect(readFileSync(join(input.worktree, 'src/new/d.ts'), 'utf8')).toBe('delta\n');
  });

  test('a second call with the same key changes nothing more and answers the same', async () => {
    const input = await childAndParent();
    const { mergeWorktree } = activities();
    const first = await run(mergeWorktree, input);
    // The child's worktree changes afterwards: the merge is done, and is not done again.
    writeFileSync(join(input.worktree, 'src/b.ts'), 'beta changed later\n');
    const again = await run(mergeWorktree, input);
    expect(again).toEqual(first);
    expect(ws.listing()).toEqual(MERGED);
  });

  test("a retry once the merge is journaled needs the child's worktree no more", async () => {
    const input = await childAndParent();
    const { mergeWorktree } = activities();
    const first = await run(mergeWorktree, input);
    rmSync(input.worktree, { recursive: true });
    expect(await run(mergeWorktree, input)).toEqual(first);
  });

  test("a file of the child's where the parent has a directory of ignored files is a conflict, not merged", async () => {
    const input = await childAndParent();
    ws.write('.gitignore', 'node_modules/\nbuild/\n', { recent: true });
    ws.write('build/out.js', 'built\n', { recent: true });
    writeFileSync(join(input.worktree, 'build'), 'a file\n');
    const outcome = await run(activities().mergeWorktree, input);
    expect(outcome).toMatchObject({
      merged: ['docs/old.md', 'src/a.ts', 'src/new/d.ts'],
      filesMerged: 3,
      conflictCount: 2,
    });
    expect(outcome.conflicts[0]).toEqual({ path: 'build', why: 'not_text', hunks: [] });
    expect(ws.read('build/out.js')).toBe('built\n');
  });

  test('the record is written before any file changes; a crash after it, or half-way, is completed by the retry', async () => {
    const input = await childAndParent();
    const before = ws.listing();
    let atRecord: Record<string, string> | undefined;
    // A worker killed right after the journal record: no file touched yet.
    const crashing: EffectJournal = {
      find: (sessionId, callKey) => journal.find(sessionId, callKey),
      close: (sessionId) => journal.close(sessionId),
      async record(sessionId: string, callKey: string, record: EffectRecord) {
        atRecord = ws.listing();
        await journal.record(sessionId, callKey, record);
        throw new Error('worker killed');
      },
    };
    await expect(run(activities(crashing).mergeWorktree, input)).rejects.toThrow('worker killed');
    expect(atRecord).toEqual(before);
    expect(ws.listing()).toEqual(before);
    const record = await journal.find(input.sessionId, mergeCallKey(input.key));
    expect(record).toMatchObject({ path: input.key, message: 'merge' });

    // The retry's worker dies too, half-way through the files: one of them is in place.
    const plan = await getJson<{ changes: { path: string }[] }>(ws.store, record!.afterHash);
    expect(plan.changes.map(({ path }) => path)).toEqual(['docs/old.md', 'src/a.ts', 'src/new/d.ts']);
    rmSync(join(ws.workdir, 'docs'), { recursive: true });
    // The child keeps writing meanwhile: none of that is merged, the plan is.
    writeFileSync(join(input.worktree, 'src/b.ts'), 'beta changed later\n');

    const outcome = await run(activities().mergeWorktree, input);
    expectMergedOutcome(outcome);
    expect(outcome.snapshot.ref).toBe((await takeSnapshot(ws.store, ws.workdir)).ref);
    expect(await run(activities().mergeWorktree, input)).toEqual(outcome);
  });

  test('a merge cancelled before its plan is journaled changes nothing, and leaves the merge to do', async () => {
    const input = await childAndParent();
    const before = ws.listing();
    const environment = new MockActivityEnvironment();
    environment.cancel();
    await expect(environment.run(activities().mergeWorktree, input)).rejects.toThrow();
    expect(ws.listing()).toEqual(before);
    expect(await journal.find(input.sessionId, mergeCallKey(input.key))).toBeUndefined();
    expectMergedOutcome(await run(activities().mergeWorktree, input));
  });

  test('a worktree or workdir that is not a directory is refused for good', async () => {
    const input = await childAndParent();
    const { mergeWorktree } = activities();
    for (const bad of [{ worktree: join(cloneRoot, 'missing') }, { workdir: join(ws.workdir, 'parent.txt') }])
      await expect(run(mergeWorktree, { ...input, ...bad })).rejects.toMatchObject({
        nonRetryable: true,
        type: 'InvalidWorkdir',
      });
    expect(await journal.find(input.sessionId, mergeCallKey(input.key))).toBeUndefined();
  });
});
