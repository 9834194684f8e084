/**
 * The repository activities on real git and a real filesystem: a clone and its retry, the commit
 * and push of the session's branch (and its retry), and what of the session's own `.git` and
 * `.gitattributes` our git never runs.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createRepositoryActivities } from '../../../../src/activities/repository/repository-activities';
import { LocalContentStore } from '../../../../src/store/content-store';
import { type CloneRepositoryInput, cloneName, sessionBranch } from '../../../../src/shared/repository';
import { scratchDir } from '../../../support/paths';

const git = (args: string[], cwd?: string) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

function bareRemote(): string {
  const work = scratchDir('repo-work');
  writeFileSync(join(work, 'README.md'), '# app\n');
  git(['init', '-q', '-b', 'main'], work);
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', 'start'], work);
  git(['tag', 'v1'], work);
  const bare = join(scratchDir('repo-remote'), 'app.git');
  git(['clone', '-q', '--bare', work, bare]);
  return bare;
}

function activities() {
  return createRepositoryActivities({
    store: new LocalContentStore(scratchDir('content')),
    cloneRoot: scratchDir('clones'),
    gitRoot: scratchDir('git-dirs'),
    hostId: 'host-a',
  });
}

/** An activity call in a mock activity context (heartbeats, attempt 1). */
const run = <I, O>(activity: (input: I) => Promise<O>, input: I): Promise<O> =>
  new MockActivityEnvironment().run(activity, input) as Promise<O>;

const input = (remote: string, id = 'session/1'): CloneRepositoryInput => ({
  name: cloneName(id, 'run12345-abcd', 0),
  branch: sessionBranch(id),
  url: `file://${remote}`,
  ref: 'v1',
});

test('a clone is on the session branch at the ref, and a retry keeps it', async () => {
  const remote = bareRemote();
  const { cloneRepository } = activities();
  const clone = await run(cloneRepository, input(remote));
  expect(clone).toMatchObject({
    branch: 'durable-agent/session/1',
    commit: git(['--git-dir', remote, 'rev-parse', 'v1^{commit}']),
    host: 'host-a',
  });
  expect(clone.workdir.endsWith('/session_1-run12345')).toBe(true);
  expect(git(['branch', '--show-current'], clone.workdir)).toBe('durable-agent/session/1');
  writeFileSync(join(clone.workdir, 'work.txt'), 'in progress\n');
  const again = await run(cloneRepository, input(remote));
  expect(again).toEqual(clone);
  expect(readFileSync(join(clone.workdir, 'work.txt'), 'utf8')).toBe('in progress\n');
});

test('a ref the remote lacks, or a branch git refuses, is a final error naming it', async () => {
  const remote = bareRemote();
  const { cloneRepository } = activities();
  await expect(run(cloneRepository, { ...input(remote), ref: 'nope' })).rejects.toMatchObject({
    nonRetryable: true,
    message: expect.stringContaining('repo.ref:'),
  });
  // sessionBranch never derives such a name; an input made by hand still fails clearly.
  const refused = { ...input(remote), branch: 'durable-agent/bad..id' };
  await expect(run(cloneRepository, refused)).rejects.toMatchObject({
    nonRetryable: true,
    message: expect.stringContaining('git refuses the branch name'),
  });
});

test('a schedule-style session id (colons) gets a clone on a branch git accepts', async () => {
  const remote = bareRemote();
  const { cloneRepository } = activities();
  const cloned = await run(cloneRepository, input(remote, 'durable-agent/repo-lint-2026-12-01T13:16:03Z'));
  expect(cloned.branch).toMatch(/^durable-agent\/durable-agent\/repo-lint-2026-12-01T13-16-03Z-[0-9a-f]{10}$/);
});

test("the commit holds the files as they are (no filter, no hook of the session's runs), once, and is pushed", async () => {
  const remote = bareRemote();
  const { cloneRepository, commitBranch } = activities();
  const { workdir, branch, commit: base } = await run(cloneRepository, input(remote));
  const ran = join(scratchDir('ran'), 'marker');
  // What a session could plant in its own clone: a hook, a filter driver, attributes that use it.
  mkdirSync(join(workdir, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(workdir, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\ntouch ${ran}\n`);
  chmodSync(join(workdir, '.git', 'hooks', 'pre-commit'), 0o755);
  git(['config', 'filter.evil.clean', `sh -c 'touch ${ran}; cat'`], workdir);
  writeFileSync(join(workdir, '.gitattributes'), '* filter=evil\n*.txt text eol=crlf\n');
  writeFileSync(join(workdir, 'notes.txt'), 'one\ntwo\n');

  const request = { workdir, branch, message: 'the session' };
  const first = await run(commitBranch, request);
  expect(first).toMatchObject({ name: branch, pushed: true });
  expect(first.commit).not.toBe(base);
  expect(existsSync(ran)).toBe(false);
  expect(git(['--git-dir', remote, 'show', `${branch}:notes.txt`])).toBe('one\ntwo');
  expect(git(['--git-dir', remote, 'rev-parse', `${branch}~1`])).toBe(base);
  // A retry (the worker died after committing) finds nothing new: the same commit, pushed again.
  expect(await run(commitBranch, request)).toEqual(first);
});

test('a push the remote refuses leaves the commit in the clone and says why', async () => {
  const remote = bareRemote();
  const { cloneRepository, commitBranch } = activities();
  const { workdir, branch } = await run(cloneRepository, input(remote));
  writeFileSync(join(workdir, 'x.txt'), 'x\n');
  writeFileSync(join(remote, 'hooks', 'pre-receive'), '#!/bin/sh\necho "protected" >&2\nexit 1\n');
  chmodSync(join(remote, 'hooks', 'pre-receive'), 0o755);
  const result = await run(commitBranch, { workdir, branch, message: 'm' });
  expect(result).toMatchObject({ pushed: false, pushError: expect.stringContaining('pre-receive hook declined') });
  expect(git(['rev-parse', 'HEAD'], workdir)).not.toBe(result.commit); // the session's clone is left alone
});
