/**
 * A `repo` session's commit made from its snapshots, on real git and a real filesystem: what a
 * session can plant (a gitfile pointing at another repository, a nested repository, a `.GIT`
 * directory, FIFOs, symlinks) is committed as plain files or not at all, nothing of an outside
 * repository reaches our git directory, files over the size limit come from the workdir only when
 * unchanged, and the commit's changes are exactly what the same two snapshots compare to.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createRepositoryActivities } from '../../../src/activities/repository/repository-activities';
import { LocalContentStore } from '../../../src/store/content-store';
import { takeSnapshot } from '../../../src/snapshots/snapshot';
import { compareSnapshots } from '../../../src/snapshots/tree';
import { cloneName, sessionBranch } from '../../../src/shared/repository';
import { scratchDir } from '../../support/paths';
// Each test clones, fast-imports and pushes with real git: seconds apiece on a loaded 2-core machine.
jest.setTimeout(60_000);

const git = (args: string[], cwd?: string) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

function repository(files: Record<string, string>): string {
  const work = scratchDir('commit-work');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(work, path, '..'), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  git(['init', '-q', '-b', 'main'], work);
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', 'start'], work);
  return work;
}

function bareRemote(): string {
  const bare = join(scratchDir('commit-remote'), 'app.git');
  git([
    'clone',
    '-q',
    '--bare',
    repository({ 'README.md': '# app\n', 'src/old.ts': 'old\n', 'tool.sh': 'echo\n', notes: 'a file at first\n' }),
    bare,
  ]);
  return bare;
}

const store = new LocalContentStore(scratchDir('commit-content'));
const gitRoot = scratchDir('commit-git-dirs');
const activities = createRepositoryActivities({
  store,
  cloneRoot: scratchDir('commit-clones'),
  gitRoot,
  hostId: 'host-a',
});
const run = <I, O>(activity: (input: I) => Promise<O>, input: I): Promise<O> =>
  new MockActivityEnvironment().run(activity, input) as Promise<O>;

async function cloned(id: string) {
  const remote = bareRemote();
  const clone = await run(activities.cloneRepository, {
    name: cloneName(id, 'run12345-abcd', 0),
    branch: sessionBranch(id),
    url: `file://${remote}`,
    ref: 'main',
  });
  const first = await takeSnapshot(store, clone.workdir);
  return { remote, ...clone, first: first.ref, gitDir: join(gitRoot, `${cloneName(id, 'run12345-abcd', 0)}.git`) };
}

/** `git diff --name-status` as `filesChanged` says it: added, modified, deleted. */
function nameStatus(gitDir: string, from: string, to: string): { path: string; change: string }[] {
  const kinds: Record<string, string> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted' };
  return git(['--git-dir', gitDir, 'diff', '--name-status', '--no-renames', '-z', from, to])
    .split('\0')
    .filter(Boolean)
    .reduce<string[][]>(
      (pairs, field, index) =>
        index % 2 === 0 ? [...pairs, [field]] : [...pairs.slice(0, -1), [pairs.at(-1)![0]!, field]],
      [],
    )
    .map(([status, path]) => ({ path: path!, change: kinds[status!]! }));
}

test('a planted gitfile and a nested repository are committed as plain files; nothing of the outside repository is read', async () => {
  const session = await cloned('plant/1');
  const outside = repository({ 'SECRET.txt': 'the outside secret\n' });
  const secret = git(['rev-parse', 'HEAD'], outside);
  mkdirSync(join(session.workdir, 'fakemod'));
  writeFileSync(join(session.workdir, 'fakemod', '.git'), `gitdir: ${join(outside, '.git')}\n`);
  writeFileSync(join(session.workdir, 'fakemod', 'index.js'), 'module.exports = 1;\n');
  const nested = join(session.workdir, 'nested');
  mkdirSync(nested);
  writeFileSync(join(nested, 'inner.txt'), 'inner\n');
  git(['init', '-q', '-b', 'main'], nested);
  git(['add', '-A'], nested);
  git(['commit', '-q', '-m', 'nested'], nested);
  writeFileSync(join(session.workdir, 'README.md'), '# app, changed\n');
  const last = await takeSnapshot(store, session.workdir, session.first);

  const branch = await run(activities.commitBranch, {
    workdir: session.workdir,
    branch: session.branch,
    message: 'the session',
    fromRef: session.first,
    toRef: last.ref,
  });
  expect(branch).toMatchObject({ pushed: true });
  expect(branch.notCommitted).toBeUndefined();
  const tree = git(['--git-dir', session.remote, 'ls-tree', '-r', branch.commit]);
  expect(tree).not.toMatch(/^160000/m);
  expect(tree).toMatch(/^100644 blob \w+\tfakemod\/index\.js$/m);
  expect(tree).toMatch(/^100644 blob \w+\tnested\/inner\.txt$/m);
  expect(tree).not.toContain('.git');
  for (const gitDir of [session.gitDir, session.remote])
    expect(() => git(['--git-dir', gitDir, 'cat-file', '-e', secret])).toThrow();
  // The commit's changes are the snapshots' changes, path for path.
  expect(nameStatus(session.gitDir, session.commit, branch.commit)).toEqual(
    await compareSnapshots(store, session.first, last.ref),
  );
});

test('symlinks, executables, deletions, a file turned directory and odd names; special files and .GIT paths are listed, not committed', async () => {
  const session = await cloned('kinds/1');
  const w = (path: string) => join(session.workdir, path);
  symlinkSync('README.md', w('readme-link'));
  chmodSync(w('tool.sh'), 0o755);
  execFileSync('rm', [w('src/old.ts'), w('notes')]);
  mkdirSync(w('notes'));
  writeFileSync(w('notes/inside.txt'), 'a directory now\n');
  writeFileSync(w('src/new\nline "q" \\ end '), 'odd\n');
  writeFileSync(w('"leading quote'), 'q\n');
  execFileSync('mkfifo', [w('pipe')]);
  mkdirSync(w('.GIT'));
  writeFileSync(w('.GIT/config'), '[core]\n\tfsmonitor = evil\n');
  const last = await takeSnapshot(store, session.workdir, session.first);

  const branch = await run(activities.commitBranch, {
    workdir: session.workdir,
    branch: session.branch,
    message: 'kinds',
    fromRef: session.first,
    toRef: last.ref,
  });
  expect(branch.notCommitted).toEqual([
    { path: '.GIT/config', reason: expect.stringContaining('.git component') },
    { path: 'pipe', reason: expect.stringContaining('a FIFO') },
  ]);
  const entries = git(['--git-dir', session.gitDir, 'ls-tree', '-r', '-z', branch.commit]).split('\0');
  expect(entries).toContainEqual(expect.stringMatching(/^120000 blob \w+\treadme-link$/));
  expect(git(['--git-dir', session.gitDir, 'cat-file', '-p', `${branch.commit}:readme-link`])).toBe('README.md');
  expect(entries).toContainEqual(expect.stringMatching(/^100755 blob \w+\ttool\.sh$/));
  expect(entries).toContainEqual(expect.stringMatching(/^100644 blob \w+\tsrc\/new\nline "q" \\ end $/));
  expect(entries).toContainEqual(expect.stringMatching(/^100644 blob \w+\t"leading quote$/));
  expect(entries.some((entry) => entry.endsWith('\tsrc/old.ts'))).toBe(false);
  expect(entries).toContainEqual(expect.stringMatching(/^100644 blob \w+\tnotes\/inside\.txt$/));
  const committed = (await compareSnapshots(store, session.first, last.ref)).filter(
    (change) => !branch.notCommitted!.some((left) => left.path === change.path),
  );
  expect(nameStatus(session.gitDir, session.commit, branch.commit)).toEqual(committed);
});

test('a retry after the branch moved makes no second commit; nothing changed makes none at all', async () => {
  const session = await cloned('retry/1');
  writeFileSync(join(session.workdir, 'work.txt'), 'done\n');
  const last = await takeSnapshot(store, session.workdir, session.first);
  const input = {
    workdir: session.workdir,
    branch: session.branch,
    message: 'm',
    fromRef: session.first,
    toRef: last.ref,
  };
  const first = await run(activities.commitBranch, input);
  expect(first.commit).not.toBe(session.commit);
  expect(await run(activities.commitBranch, input)).toEqual(first);
  expect(git(['--git-dir', session.gitDir, 'rev-list', '--count', `${session.commit}..${session.branch}`])).toBe('1');

  const unchanged = await cloned('retry/2');
  const same = await run(activities.commitBranch, {
    workdir: unchanged.workdir,
    branch: unchanged.branch,
    message: 'm',
    fromRef: unchanged.first,
    toRef: unchanged.first,
  });
  expect(same).toEqual({ name: unchanged.branch, commit: unchanged.commit, pushed: true });
});

test('a file over the size limit is read from the workdir only while it is what the last snapshot recorded', async () => {
  const session = await cloned('big/1');
  writeFileSync(join(session.workdir, 'big.bin'), Buffer.alloc(4096, 7));
  writeFileSync(join(session.workdir, 'later.bin'), Buffer.alloc(4096, 8));
  const last = await takeSnapshot(store, session.workdir, session.first, { maxFileBytes: 1024 });
  // Changed after the last snapshot (same size, other bytes, a later mtime): not what the snapshot says.
  await new Promise((resolve) => setTimeout(resolve, 20));
  writeFileSync(join(session.workdir, 'later.bin'), Buffer.alloc(4096, 9));

  const branch = await run(activities.commitBranch, {
    workdir: session.workdir,
    branch: session.branch,
    message: 'big',
    fromRef: session.first,
    toRef: last.ref,
  });
  expect(branch.notCommitted).toEqual([{ path: 'later.bin', reason: expect.stringContaining('changed since') }]);
  expect(execFileSync('git', ['--git-dir', session.gitDir, 'cat-file', 'blob', `${branch.commit}:big.bin`])).toEqual(
    Buffer.alloc(4096, 7),
  );
  expect(() => git(['--git-dir', session.gitDir, 'cat-file', '-e', `${branch.commit}:later.bin`])).toThrow();
});

test('without snapshot references (older workflow code), the workdir is snapshotted over the base: ignored tracked files stay, planted repositories are plain files', async () => {
  const session = await cloned('fallback/1');
  const outside = repository({ 'SECRET.txt': 'the outside secret\n' });
  mkdirSync(join(session.workdir, 'fakemod'));
  writeFileSync(join(session.workdir, 'fakemod', '.git'), `gitdir: ${join(outside, '.git')}\n`);
  writeFileSync(join(session.workdir, 'fakemod', 'a.txt'), 'a\n');
  writeFileSync(join(session.workdir, '.gitignore'), 'tool.sh\n');
  execFileSync('rm', [join(session.workdir, 'src/old.ts')]);
  const branch = await run(activities.commitBranch, {
    workdir: session.workdir,
    branch: session.branch,
    message: 'old code',
  });
  expect(nameStatus(session.gitDir, session.commit, branch.commit)).toEqual([
    { path: '.gitignore', change: 'added' },
    { path: 'fakemod/a.txt', change: 'added' },
    { path: 'src/old.ts', change: 'deleted' },
  ]);
  expect(() => git(['--git-dir', session.gitDir, 'cat-file', '-e', git(['rev-parse', 'HEAD'], outside)])).toThrow();
});
