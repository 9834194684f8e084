/**
 * Every git call of the worker runs with the clean configuration: nothing of the worker user's
 * config (a HOME `.gitconfig`, `$XDG_CONFIG_HOME/git/config`), of its `GIT_*` variables, or of a
 * repository found by walking up applies; only clone and push read `AGENT_GIT_CONFIG`. On real git.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createRepositoryActivities } from '../../../src/activities/repository/repository-activities';
import { Git } from '../../../src/git/git';
import { gitEnvironment } from '../../../src/git/git-environment';
import { LocalContentStore } from '../../../src/store/content-store';
import { cloneName, sessionBranch } from '../../../src/shared/repository';
import { scratchDir } from '../../support/paths';

const plainGit = (args: string[], cwd?: string) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH!, HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();

function bareRemote(file = 'README.md'): string {
  const work = scratchDir('git-work');
  writeFileSync(join(work, file), '# app\n');
  plainGit(['init', '-q', '-b', 'main'], work);
  plainGit(['add', '-A'], work);
  plainGit(['commit', '-q', '-m', 'start'], work);
  const bare = join(scratchDir('git-remote'), 'app.git');
  plainGit(['clone', '-q', '--bare', work, bare]);
  return bare;
}

/** A program that leaves a marker when git runs it. */
function tattletale(marker: string): string {
  const script = join(scratchDir('git-tattle'), 'run.sh');
  writeFileSync(script, `#!/bin/sh\ntouch ${marker}\nexit 1\n`);
  chmodSync(script, 0o755);
  return script;
}

const saved = { ...process.env };
let marker: string;
let evilRemote: string;

beforeEach(() => {
  marker = join(scratchDir('git-marker'), 'ran');
  evilRemote = bareRemote('EVIL.md');
  const script = tattletale(marker);
  const hooks = scratchDir('git-hooks');
  for (const hook of ['reference-transaction', 'pre-push', 'post-checkout', 'pre-auto-gc']) {
    writeFileSync(join(hooks, hook), `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(join(hooks, hook), 0o755);
  }
  // What a careless worker host (or anything that wrote the worker user's files) may hold.
  const userConfig = [
    `[core]\n\thooksPath = ${hooks}\n\tpager = ${script}\n\tfsmonitor = ${script}\n\tsshCommand = ${script}`,
    `[diff]\n\texternal = ${script}`,
    `[alias]\n\tpush = !${script}`,
    `[protocol]\n\tallow = always`,
    `[url "file://${evilRemote}"]\n\tinsteadOf = https://example.invalid/app.git`,
    `[safe]\n\tdirectory = *`,
  ].join('\n');
  const home = scratchDir('git-home');
  writeFileSync(join(home, '.gitconfig'), userConfig);
  mkdirSync(join(home, '.config', 'git'), { recursive: true });
  writeFileSync(join(home, '.config', 'git', 'config'), userConfig);
  Object.assign(process.env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_PARAMETERS: `'core.hookspath'='${hooks}'`,
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'core.pager',
    GIT_CONFIG_VALUE_0: script,
    GIT_EXTERNAL_DIFF: script,
    GIT_ALLOW_PROTOCOL: 'ext:file:https',
    GIT_ASKPASS: script,
    SSH_ASKPASS: script,
    GIT_DIR: evilRemote,
  });
});

afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

const run = <I, O>(activity: (input: I) => Promise<O>, input: I): Promise<O> =>
  new MockActivityEnvironment().run(activity, input) as Promise<O>;

function activities(gitConfig?: string) {
  return createRepositoryActivities({
    store: new LocalContentStore(scratchDir('content')),
    cloneRoot: scratchDir('clones'),
    gitRoot: scratchDir('git-dirs'),
    hostId: 'host-a',
    ...(gitConfig ? { gitConfig } : {}),
  });
}

const cloneInput = (url: string, id = 'clean/1') => ({
  name: cloneName(id, 'run12345-abcd', 0),
  branch: sessionBranch(id),
  url,
  ref: 'main',
});

test('a git call sees only the command line config, no GIT_* of the worker, and no repository around its directory', async () => {
  // The git root lies inside this project's own repository: no discovery may reach it.
  const git = new Git({ home: scratchDir('git-root') });
  const origins = (await git.run(['config', '--list', '--show-origin'])).split('\n');
  expect(origins.length).toBeGreaterThan(5);
  for (const origin of origins) expect(origin.startsWith('command line:')).toBe(true);
  expect(origins).toContain('command line:\tcore.hookspath=/dev/null');
  expect(origins).toContain('command line:\tprotocol.allow=never');
  await expect(git.run(['rev-parse', '--git-dir'])).rejects.toThrow(/not a git repository/);
  expect(existsSync(marker)).toBe(false);
});

test("the user's hooks, pager, external diff and aliases never run: a clone, commit and push leave no marker", async () => {
  const remote = bareRemote();
  const { cloneRepository, commitBranch } = activities();
  const clone = await run(cloneRepository, cloneInput(`file://${remote}`));
  writeFileSync(join(clone.workdir, 'notes.txt'), 'notes\n');
  const branch = await run(commitBranch, { workdir: clone.workdir, branch: clone.branch, message: 'm' });
  expect(branch).toMatchObject({ pushed: true });
  expect(plainGit(['--git-dir', remote, 'show', `${clone.branch}:notes.txt`])).toBe('notes');
  expect(existsSync(marker)).toBe(false);
});

test("the user's url.insteadOf has no effect; AGENT_GIT_CONFIG's has, for clone and push", async () => {
  const url = 'https://example.invalid/app.git';
  await expect(run(activities().cloneRepository, cloneInput(url))).rejects.toThrow(/could not be cloned/);

  const operator = join(scratchDir('git-operator'), 'gitconfig');
  writeFileSync(operator, `[url "file://${evilRemote}"]\n\tinsteadOf = https://example.invalid/app.git\n`);
  const { cloneRepository, commitBranch } = activities(operator);
  const clone = await run(cloneRepository, cloneInput(url, 'clean/2'));
  expect(existsSync(join(clone.workdir, 'EVIL.md'))).toBe(true);
  writeFileSync(join(clone.workdir, 'pushed.txt'), 'through the rewrite\n');
  expect(await run(commitBranch, { workdir: clone.workdir, branch: clone.branch, message: 'm' })).toMatchObject({
    pushed: true,
  });
  expect(plainGit(['--git-dir', evilRemote, 'show', `${clone.branch}:pushed.txt`])).toBe('through the rewrite');
  expect(existsSync(marker)).toBe(false);
});

test('transports other than https, http, ssh, git and file are refused, whatever a config allows', async () => {
  const operator = join(scratchDir('git-operator'), 'gitconfig');
  writeFileSync(operator, '[protocol]\n\tallow = always\n[protocol "ext"]\n\tallow = always\n');
  const { cloneRepository } = activities(operator);
  const url = `ext::sh -c touch% ${marker}`;
  await expect(run(cloneRepository, cloneInput(url))).rejects.toThrow(/could not be cloned/);
  await expect(run(cloneRepository, cloneInput('fd::3', 'clean/3'))).rejects.toThrow(/could not be cloned/);
  expect(existsSync(marker)).toBe(false);
});

test("ssh: the user's core.sshCommand is not run, the operator's is (our batch-mode default does not hide it)", async () => {
  const url = 'ssh://git@127.0.0.1:1/app.git';
  await expect(run(activities().cloneRepository, cloneInput(url))).rejects.toThrow(/could not be cloned/);
  expect(existsSync(marker)).toBe(false);
  const operator = join(scratchDir('git-operator'), 'gitconfig');
  const included = join(scratchDir('git-operator'), 'ssh.gitconfig');
  writeFileSync(included, `[core]\n\tsshCommand = ${tattletale(marker)}\n`);
  writeFileSync(operator, `[include]\n\tpath = ${included}\n`);
  await expect(run(activities(operator).cloneRepository, cloneInput(url, 'clean/4'))).rejects.toThrow(
    /could not be cloned/,
  );
  expect(existsSync(marker)).toBe(true);
});

test('the environment of a call: GIT_* dropped but the SSH command, no askpass, ssh in batch mode unless the operator chose a command', () => {
  const worker = {
    PATH: '/bin',
    HOME: '/h',
    GIT_DIR: '/x',
    GIT_WORK_TREE: '/y',
    GIT_SSH_COMMAND: 'ssh -i key',
    GIT_ASKPASS: '/a',
    SSH_ASKPASS: '/a',
    GIT_TRACE: '1',
  };
  const environment = gitEnvironment(worker, { cwd: '/root/.durable-agent/git' });
  expect(environment).toMatchObject({
    PATH: '/bin',
    HOME: '/h',
    GIT_SSH_COMMAND: 'ssh -i key',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CEILING_DIRECTORIES: '/root/.durable-agent',
  });
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_TRACE'])
    expect(environment[name]).toBeUndefined();
  expect(gitEnvironment({}, { cwd: '/g/r' }).GIT_SSH_COMMAND).toBe('ssh -o BatchMode=yes');
  expect(gitEnvironment({}, { cwd: '/g/r', globalConfig: '/etc/agent-git', configuresSsh: true })).toMatchObject({
    GIT_CONFIG_GLOBAL: '/etc/agent-git',
  });
  expect(
    gitEnvironment({}, { cwd: '/g/r', globalConfig: '/etc/agent-git', configuresSsh: true }).GIT_SSH_COMMAND,
  ).toBeUndefined();
});
