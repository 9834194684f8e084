/**
 * From a host's SIGKILL (during a command of a `repo` session) to the session's next model
 * request, made from the host it moved to: the heartbeat timeout, `hostLossTimeoutMs` spent
 * waiting for the lost host, then the move (a clone of the remote at the session's starting
 * commit, the last snapshot put back, the session prepared again) and the lost command answered
 * as lost (it is not run again by itself).
 * Both hosts are worker processes (`npm run worker`), the remote a bare repository of 1,000 files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cloneName } from '../../src/shared/repository';
import { reply, text, toolUse, turnOf } from '../../test/support/fake-anthropic';
import type { Harness } from '../../test/support/harness';
import { scratchDir } from '../../test/support/paths';
import { median, round, type Row, waitForWorker } from './support';

const HOST_LOSS_TIMEOUT_MS = 10_000;
const FILES = 1_000;

function bareRemote(): string {
  const work = scratchDir('bench-remote-work');
  for (let index = 0; index < FILES; index++) {
    const directory = join(work, 'src', `m${index % 20}`);
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, `f${index}.ts`), `export const value${index} = ${index};\n`.repeat(20));
  }
  writeFileSync(join(work, '.gitignore'), '.marks/\n');
  const git = (args: string[]) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd: work });
  git(['init', '-q', '-b', 'main']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'start']);
  const bare = join(scratchDir('bench-remote'), 'app.git');
  git(['clone', '-q', '--bare', work, bare]);
  return bare;
}

export async function hostLoss(harness: Harness): Promise<Row[]> {
  const remote = bareRemote();
  const totals: number[] = [];
  const moves: number[] = [];
  const asUsers = { AGENT_WORKFLOW_BUNDLE: '' };
  for (let repetition = 0; repetition < 3; repetition++) {
    const roots = scratchDir('bench-roots');
    let killedAt = 0;
    let nextRequestAt = 0;
    harness.fake.handler = (request) => {
      const turn = turnOf(request);
      if (turn === 0) return reply([toolUse('Read', { file_path: 'src/m0/f0.ts' })]);
      if (turn === 1)
        return reply([
          toolUse('Edit', {
            file_path: 'src/m0/f0.ts',
            old_string: 'value0 ',
            new_string: 'first ',
            replace_all: true,
          }),
        ]);
      // Slow on host-a only: killed there, the command runs again at once where the session moved.
      if (turn === 2)
        return reply([
          toolUse('Bash', {
            command: 'mkdir -p .marks; touch .marks/started; case "$PWD" in *host-a*) sleep 120;; esac; echo ok',
          }),
        ]);
      if (killedAt && !nextRequestAt) nextRequestAt = performance.now();
      return reply([text('done')]);
    };
    const hostA = harness.spawnWorker({
      ...asUsers,
      AGENT_HOST_ID: 'host-a',
      AGENT_WORKSPACE_ROOTS: join(roots, 'host-a'),
    });
    const hostB = harness.spawnWorker({
      ...asUsers,
      AGENT_HOST_ID: 'host-b',
      AGENT_WORKSPACE_ROOTS: join(roots, 'host-b'),
    });
    await Promise.all([waitForWorker(hostA), waitForWorker(hostB)]);
    const handle = await harness.start({
      prompt: 'edit',
      repo: { url: `file://${remote}` },
      host: 'host-a',
      hostLossTimeoutMs: HOST_LOSS_TIMEOUT_MS,
      toolSummaries: false,
    });
    const marker = join(
      roots,
      'host-a',
      cloneName(handle.workflowId, handle.firstExecutionRunId, 0),
      '.marks',
      'started',
    );
    while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 20));
    hostA.kill('SIGKILL');
    killedAt = performance.now();
    const result = (await handle.result()) as { reason: string; branch?: { pushed: boolean } };
    if (result.reason !== 'completed' || !result.branch?.pushed)
      throw new Error(`host-loss bench: the session ended ${JSON.stringify(result)}`);
    totals.push((nextRequestAt - killedAt) / 1000);
    moves.push((nextRequestAt - killedAt - HOST_LOSS_TIMEOUT_MS) / 1000);
    hostB.kill('SIGTERM');
  }
  const list = (values: number[]) => values.map((value) => round(value, 2)).join(', ');
  return [
    {
      figure: `Host loss: seconds from SIGKILL of a \`repo\` session's host (mid-command; 1,000-file repository) to the session's next model request, from the host it moved to (hostLossTimeoutMs ${HOST_LOSS_TIMEOUT_MS / 1000} s)`,
      value: `${round(median(totals), 2)} s (median of ${totals.length}: ${list(totals)})`,
      command: 'npm run bench -- --only hostloss',
    },
    {
      figure:
        'Host loss: the same, less hostLossTimeoutMs (the heartbeat timeout, then the move: a clone, the last snapshot put back, the session prepared again, the lost command answered as lost)',
      value: `${round(median(moves), 2)} s (median of ${moves.length}: ${list(moves)})`,
      command: 'npm run bench -- --only hostloss',
    },
  ];
}
