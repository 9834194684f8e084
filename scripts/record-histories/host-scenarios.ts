/**
 * The recorded paths of host loss: host-a's host queue stops being served in the middle of a
 * session (its worker for that queue shut down; the scenario holds turn 2's model reply until
 * then). A `repo` session moves to host-b (`workspace_moved`); a `workdir` session waits
 * (`waiting_host`) until the update `move` names host-b.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply, text, toolUse, type FakeReply } from '../../test/support/fake-anthropic';
import { scratchDir } from '../../test/support/paths';
import { type Scenario, sequence, stateWhere } from './scenario';

/** Turn 2's reply, held until host-a's host queue is gone. */
function heldTurns(): { handler: Scenario['handler']; release: () => void } {
  let release: () => void = () => undefined;
  const held = new Promise<FakeReply>((resolve) => {
    release = () =>
      resolve(reply([toolUse('Edit', { file_path: 'notes/a.txt', old_string: 'alpha', new_string: 'gamma' })]));
  });
  const handler = sequence([
    () => reply([toolUse('Write', { file_path: 'notes/a.txt', content: 'alpha\n' })]),
    () => ({ kind: 'hold', release: held }),
    () => reply([text('Done.')]),
  ]);
  return { handler, release: () => release() };
}

function bareRemote(): string {
  const work = scratchDir('remote-work');
  const git = (args: string[], cwd: string) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });
  writeFileSync(join(work, 'README.md'), '# app\n');
  git(['init', '-q', '-b', 'main'], work);
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', 'start'], work);
  const bare = join(scratchDir('remote'), 'app.git');
  git(['clone', '-q', '--bare', work, bare], work);
  return bare;
}

const repoMoved = heldTurns();
const workdirMoved = heldTurns();

export const hostScenarios: Scenario[] = [
  {
    name: 'repo-moved',
    files: {},
    hosts: true,
    handler: repoMoved.handler,
    prepareInput: async () => ({
      workdir: undefined,
      repo: { url: `file://${bareRemote()}` },
      host: 'host-a',
      hostLossTimeoutMs: 1_000,
      toolSummaries: false,
    }),
    drive: async (_handle, harness, hosts) => {
      await harness.fake.waitForRequests(2);
      await hosts!.stopHostQueue('host-a');
      repoMoved.release();
    },
  },
  {
    name: 'workdir-moved',
    files: {},
    hosts: true,
    handler: workdirMoved.handler,
    input: { host: 'host-a', hostLossTimeoutMs: 1_000, toolSummaries: false },
    drive: async (handle, harness, hosts) => {
      await harness.fake.waitForRequests(2);
      await hosts!.stopHostQueue('host-a');
      workdirMoved.release();
      await stateWhere(handle, (state) => state.status === 'waiting_host');
      const elsewhere = join(scratchDir('moved'), 'repo');
      mkdirSync(join(elsewhere, '..'), { recursive: true });
      await handle.executeUpdate('move', { args: [{ host: 'host-b', workdir: elsewhere }] });
    },
  },
];
