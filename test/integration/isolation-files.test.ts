/**
 * Issue 22's attacks on the worker's file access, against a real worker process with
 * AGENT_SANDBOX=bwrap and its secrets in its home (~/.ssh): a racer in the sandbox swaps a
 * directory for a symlink to ~/.ssh as fast as it can while the worker writes, edits,
 * snapshots, forks and rewinds through that directory; FIFOs sit where the worker reads a
 * session's files; a 60 GB sparse file waits for the next snapshot; a repo session plants a
 * gitfile and a nested repository for the worker's commit. Nothing outside the workdir is read,
 * written, stored or committed, and every session goes on.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import {
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { takeSnapshot } from '../../src/snapshots/snapshot';
import { flattenSnapshot } from '../../src/snapshots/tree';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { cloneName } from '../../src/shared/repository';
import { endSignal, rewindUpdate, stateQuery } from '../../src/workflows/definitions';
import { lastToolResults, reply, text, toolResultText, toolUse, type RecordedRequest } from '../support/fake-anthropic';
import { Harness, makeRepo } from '../support/harness';
import {
  appears,
  isolatedWorker,
  raceCommand,
  racedWorkdir,
  racerSource,
  roleOf,
  RoleRouter,
  secrets,
  transcriptOf,
  workerHome,
} from '../support/isolation';
import { bareRemote, git } from '../support/git-remote';
import { scratchDir } from '../support/paths';

jest.setTimeout(300_000);

const secret = secrets();
const router = new RoleRouter();
let harness: Harness;
let home: string;
let worker: ChildProcess;
let sshBefore: Record<string, string>;

const sshNow = () =>
  Object.fromEntries(
    readdirSync(join(home, '.ssh')).map((name) => [name, readFileSync(join(home, '.ssh', name), 'utf8')]),
  );
const keysIn = (directory: string) =>
  Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`${directory}/k${index}`, `${secret.authorizedKey}\n`]));
const many = (count: number, call: (index: number) => ReturnType<typeof toolUse>) =>
  reply(Array.from({ length: count }, (_, index) => call(index)));

/** Fifty Writes of new files, fifty Reads and fifty Edits, all through the raced directory. */
const attacks = (directory: string) => [
  many(50, (index) =>
    toolUse('Write', { file_path: `${directory}/authorized_keys_${index}`, content: 'ssh-rsa ATTACKER\n' }),
  ),
  many(50, (index) => toolUse('Read', { file_path: `${directory}/k${index}` })),
  many(50, (index) =>
    toolUse('Edit', { file_path: `${directory}/k${index}`, old_string: 'OWNER', new_string: 'ATTACKER' }),
  ),
];

/** The results of a role's last request. */
function lastResults(role: string): { text: string; isError: boolean }[] {
  const requests = harness.fake.requests.filter((request) => roleOf(request) === role);
  return lastToolResults(requests[requests.length - 1] as RecordedRequest).map((block) => ({
    text: toolResultText(block),
    isError: block.is_error === true,
  }));
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

async function stateWhere(workflowId: string, predicate: (state: AgentState) => boolean): Promise<AgentState> {
  const handle = harness.client.workflow.getHandle(workflowId);
  for (;;) {
    const state = await handle.query(stateQuery);
    if (predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  harness = await Harness.start(router.handler);
  home = workerHome(secret);
  sshBefore = sshNow();
  worker = await isolatedWorker(harness, secret, home);
});

afterAll(async () => {
  await harness.stop();
});

afterEach(() => {
  // Whatever a test did, the worker's ~/.ssh is as it was, and the worker runs on.
  expect(sshNow()).toEqual(sshBefore);
  expect(worker.exitCode).toBeNull();
});

test('(1) Write and Edit through a directory↔symlink swap raced by a sibling session: nothing lands outside', async () => {
  const { outer, workdir } = racedWorkdir(keysIn('d'));
  router.set('race-1', [raceCommand('w/d', join(home, '.ssh'), 'race-1.stop'), reply([text('raced')])]);
  router.set('write-1', [...attacks('d'), reply([text('written')])]);
  const racer = await harness.start({ prompt: 'ROLE:race-1', workdir: outer, toolSummaries: false });
  await appears(join(workdir, 'd.link'));
  const writer = await harness.start({ prompt: 'ROLE:write-1', workdir, toolSummaries: false });
  expect(await writer.result()).toMatchObject({ reason: 'completed', finalText: 'written' });
  writeFileSync(join(outer, 'race-1.stop'), '');
  expect(await racer.result()).toMatchObject({ reason: 'completed' });
});

test('(1) the same through sub-agents: one races, its sibling writes and edits', async () => {
  const workdir = makeRepo({ 'racer.py': racerSource(), ...keysIn('e') });
  router.set('parent-1', [
    reply([
      toolUse('Task', { description: 'race', prompt: 'ROLE:child-racer', subagent_type: 'racer' }),
      toolUse('Task', { description: 'write', prompt: 'ROLE:child-writer', subagent_type: 'writer' }),
    ]),
    reply([text('delegated')]),
  ]);
  router.set('child-racer', [raceCommand('e', join(home, '.ssh'), 'race-2.stop'), reply([text('raced')])]);
  router.set('child-writer', [
    reply([toolUse('Bash', { command: 'until [ -L e.link ]; do sleep 0.01; done; echo racing' })]),
    ...attacks('e'),
    reply([toolUse('Bash', { command: 'touch race-2.stop' })]),
    reply([text('written')]),
  ]);
  const parent = await harness.run({
    prompt: 'ROLE:parent-1',
    workdir,
    toolSummaries: false,
    agents: {
      racer: { description: 'Races a directory', prompt: 'You race.', tools: ['Bash'] },
      writer: { description: 'Writes files', prompt: 'You write.', tools: ['Bash', 'Read', 'Write', 'Edit'] },
    },
  });
  expect(parent).toMatchObject({ reason: 'completed', finalText: 'delegated' });
  expect(lastResults('child-writer')).toEqual([{ text: expect.stringContaining('Exit code: 0'), isError: false }]);
});

test('(2) snapshots, diff and fork while a racer swaps a directory for a symlink to ~/.ssh: the key is in none of them', async () => {
  const { outer, workdir } = racedWorkdir({ 's/notes.txt': 'inside\n' });
  router.set('race-3', [raceCommand('w/s', join(home, '.ssh'), 'race-3.stop'), reply([text('raced')])]);
  router.set('snapper', [
    ...Array.from({ length: 12 }, (_, turn) => reply([toolUse('Bash', { command: `echo ${turn} >> log.txt` })])),
    reply([text('snapped')]),
  ]);
  // The fork carries the original's conversation: it answers its own prompt first, then ends.
  router.set('fork-3', (request) =>
    lastToolResults(request).length === 0
      ? reply([toolUse('Read', { file_path: 's/id_rsa' }), toolUse('Glob', { pattern: '**/id_rsa' })])
      : reply([text('forked')]),
  );
  const racer = await harness.start({ prompt: 'ROLE:race-3', workdir: outer, toolSummaries: false });
  await appears(join(workdir, 's.link'));
  const snapper = await harness.start({ prompt: 'ROLE:snapper', workdir, toolSummaries: false });
  expect(await snapper.result()).toMatchObject({ reason: 'completed' });
  writeFileSync(join(outer, 'race-3.stop'), '');
  await racer.result();

  const { snapshots } = await snapper.query(stateQuery);
  expect(snapshots.length).toBeGreaterThan(10);
  for (const { ref } of snapshots) {
    for (const [path, entry] of await flattenSnapshot(harness.store.content, ref)) {
      expect(path).not.toMatch(/id_rsa|authorized_keys/);
      if (entry.t === 'f' && !entry.big)
        expect((await harness.store.content.getBytes(entry.h)).toString()).not.toContain(secret.privateKey);
    }
  }
  const diff = await harness.cli(['diff', snapper.workflowId]);
  expect(diff.code).toBe(0);
  expect(diff.stdout + diff.stderr).not.toContain(secret.privateKey);
  const forkDir = join(mkdtempSync(join(tmpdir(), 'fork-')), 'copy');
  const fork = await harness.cli([
    'fork',
    snapper.workflowId,
    '--turn',
    '6',
    '--workdir',
    forkDir,
    '--no-worker',
    'ROLE:fork-3 look around',
  ]);
  expect(fork.code).toBe(0);
  expect(filesUnder(forkDir).filter((path) => readFileSync(path, 'utf8').includes(secret.privateKey))).toEqual([]);
  const forkRequests = harness.fake.requests.filter((request) => roleOf(request) === 'fork-3');
  expect(JSON.stringify(forkRequests.map((request) => request.body.messages))).not.toContain(secret.privateKey);
}, 300_000);

test('(3) a rewind while a second session swaps the directory it restores for a symlink to outside: nothing is written outside', async () => {
  const outside = scratchDir('outside');
  const { outer, workdir } = racedWorkdir(
    Object.fromEntries([0, 1, 2, 3, 4].map((index) => [`r/x${index}`, 'start\n'])),
  );
  router.set('rewinder', [
    reply([toolUse('Bash', { command: 'for i in 0 1 2 3 4; do echo turn1 > r/x$i; done' })]),
    reply([toolUse('Bash', { command: 'for i in 0 1 2 3 4; do echo turn2 > r/x$i; done' })]),
    reply([text('waiting for you')]),
  ]);
  router.set('race-4', [raceCommand('w/r', outside, 'race-4.stop'), reply([text('raced')])]);
  const rewinder = await harness.start({ prompt: 'ROLE:rewinder', workdir, toolSummaries: false, interactive: true });
  await stateWhere(rewinder.workflowId, (state) => state.status === 'waiting_input' && state.snapshots.length >= 3);
  const racer = await harness.start({ prompt: 'ROLE:race-4', workdir: outer, toolSummaries: false });
  await appears(join(workdir, 'r.link'));
  // Refused, failed or done: whichever, nothing goes through the link.
  await rewinder.executeUpdate(rewindUpdate, { args: [{ turn: 1, force: true }] }).catch((error: unknown) => error);
  writeFileSync(join(outer, 'race-4.stop'), '');
  await racer.result();
  await rewinder.signal(endSignal);
  expect(await rewinder.result()).toMatchObject({ reason: 'completed' });
  expect(readdirSync(outside)).toEqual([]);
});

test("(6) FIFOs where the worker reads a session's files: the session goes on, a canary beside it too, and no FIFO is opened", async () => {
  const workdir = makeRepo({ 'README.md': '# repo\n' });
  mkdirSync(join(workdir, '.git', 'info'), { recursive: true });
  mkdirSync(join(workdir, '.claude', 'agents'), { recursive: true });
  const fifos = ['.git/info/exclude', '.claude/settings.json', '.mcp.json', '.claude/agents/x.md', 'AGENTS.md'];
  for (const fifo of fifos) execFileSync('mkfifo', [join(workdir, fifo)]);
  const canaryDir = makeRepo({ 'a.txt': 'a\n' });
  router.set('fifo', [
    reply([toolUse('Bash', { command: 'mkfifo later.fifo && echo made' })]),
    reply([toolUse('Read', { file_path: 'AGENTS.md' }), toolUse('Read', { file_path: '.git/info/exclude' })]),
    reply([toolUse('Bash', { command: 'echo again >> README.md' })]),
    reply([text('fifo done')]),
  ]);
  router.set('canary', [
    ...Array.from({ length: 10 }, () =>
      reply([toolUse('Read', { file_path: 'a.txt' }), toolUse('Bash', { command: 'echo tick >> ticks.txt' })]),
    ),
    reply([text('canary done')]),
  ]);
  const [fifo, canary] = await Promise.all([
    harness.start({ prompt: 'ROLE:fifo', workdir, toolSummaries: false, trustRepoHooks: true }),
    harness.start({ prompt: 'ROLE:canary', workdir: canaryDir, toolSummaries: false }),
  ]);
  expect(await fifo.result()).toMatchObject({ reason: 'completed', finalText: 'fifo done' });
  expect(await canary.result()).toMatchObject({ reason: 'completed', finalText: 'canary done' });
  expect(readFileSync(join(canaryDir, 'ticks.txt'), 'utf8')).toBe('tick\n'.repeat(10));
  const session = (await transcriptOf(harness, fifo.workflowId)).find((entry) => entry.type === 'session');
  expect(session).toMatchObject({
    skippedRepoHooks: ['.claude/settings.json (not a regular file (a FIFO))'],
    skippedMcpJson: '.mcp.json (not a regular file (a FIFO))',
    skippedRepoAgents: ['.claude/agents/x.md: cannot be read: not a regular file (a FIFO)'],
  });
  expect(session).not.toHaveProperty('instructionFiles');
  const reads = harness.fake.requests
    .filter((request) => roleOf(request) === 'fifo')
    .map((request) => lastToolResults(request).map(toolResultText).join('\n'));
  expect(reads.join('\n')).toContain('AGENTS.md is not a regular file (a FIFO), so it cannot be read.');
  // A FIFO that nobody holds open for reading refuses a non-blocking writer: the worker never opened one.
  for (const fifo of [...fifos, 'later.fifo'])
    expect(() => openSync(join(workdir, fifo), constants.O_WRONLY | constants.O_NONBLOCK)).toThrow(/ENXIO/);
});

test('(9) a repo session that plants a gitfile and a nested repository: its branch holds them as plain files, nothing of the outside repository, exactly its filesChanged', async () => {
  const remote = bareRemote({ 'README.md': '# app\n' });
  // Another repository on the worker host, with a commit the session must never get at.
  const outside = scratchDir('outside-repository');
  writeFileSync(join(outside, 'SECRET.txt'), 'the outside secret\n');
  git(['init', '-q', '-b', 'main'], outside);
  git(['add', '-A'], outside);
  git(['commit', '-q', '-m', 'secret'], outside);
  const outsideCommit = git(['rev-parse', 'HEAD'], outside);
  const plant = [
    `mkdir fakemod && printf 'gitdir: ${join(outside, '.git')}\\n' > fakemod/.git && echo 'module.exports = 1;' > fakemod/index.js`,
    'mkdir nested && cd nested && git init -q && echo inner > inner.txt && git add -A && git -c user.name=a -c user.email=a@b commit -qm nested && cd ..',
    'echo changed >> README.md',
  ].join(' && ');
  router.set('git-plant', [reply([toolUse('Bash', { command: plant })]), reply([text('Planted.')])]);
  const handle = await harness.start({
    prompt: 'ROLE:git-plant',
    repo: { url: `file://${remote}`, ref: 'main' },
    toolSummaries: false,
  });
  const result = (await handle.result()) as AgentResult;
  expect(lastResults('git-plant')).toEqual([{ text: expect.not.stringMatching(/error|fatal/i), isError: false }]);
  expect(result.branch).toMatchObject({ name: `durable-agent/${handle.workflowId}`, pushed: true });
  expect(result.branch?.notCommitted).toBeUndefined();

  const branch = `durable-agent/${handle.workflowId}`;
  const tree = git(['--git-dir', remote, 'ls-tree', '-r', branch]);
  expect(tree).not.toMatch(/^160000/m);
  expect(tree).toMatch(/^100644 blob \w+\tfakemod\/index\.js$/m);
  expect(tree).toMatch(/^100644 blob \w+\tnested\/inner\.txt$/m);
  // The worker's git directory of the session (under its HOME) and the remote hold nothing of the outside repository.
  const ourGitDir = join(
    home,
    '.durable-agent',
    'git',
    `${cloneName(handle.workflowId, handle.firstExecutionRunId, 0)}.git`,
  );
  for (const gitDir of [ourGitDir, remote])
    expect(() => git(['--git-dir', gitDir, 'cat-file', '-e', outsideCommit])).toThrow();
  // The result's filesChanged is the commit's change list, path for path.
  const kinds: Record<string, string> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted' };
  const committed = git(['--git-dir', remote, 'diff', '--name-status', '--no-renames', 'main', branch])
    .split('\n')
    .map((line) => line.split('\t'))
    .map(([status, path]) => ({ path, change: kinds[status!] }));
  expect(result.filesChanged?.map(({ path, change }) => ({ path, change }))).toEqual(committed);
  expect(committed.map((change) => change.path)).toEqual(['README.md', 'fakemod/index.js', 'nested/inner.txt']);
});

test('(8) a 60 GB sparse file is recorded by its size, not read: the next snapshot takes well under a second', async () => {
  const workdir = makeRepo({ 'README.md': '# repo\n' });
  writeFileSync(join(workdir, 'disk.img'), '');
  truncateSync(join(workdir, 'disk.img'), 60 * 1024 ** 3);
  router.set('sparse', [reply([toolUse('Bash', { command: 'echo more >> README.md' })]), reply([text('sparse done')])]);
  expect(await harness.run({ prompt: 'ROLE:sparse', workdir, toolSummaries: false })).toMatchObject({
    reason: 'completed',
  });
  const started = performance.now();
  const snapshot = await takeSnapshot(harness.store.content, workdir);
  const elapsed = performance.now() - started;
  expect((await flattenSnapshot(harness.store.content, snapshot.ref)).get('disk.img')).toMatchObject({
    t: 'f',
    s: 60 * 1024 ** 3,
    big: true,
    h: expect.stringMatching(/^meta:/),
  });
  // Reading 60 GB would take minutes; a stat takes microseconds. One second leaves room for a loaded machine.
  expect(elapsed).toBeLessThan(1000);
});
