/**
 * Interrupt: from the `interrupt` update to the running command's process being gone, and to the
 * update's answer (the workflow's next step). The command is `sleep 3 && touch FINISHED`:
 * FINISHED must never appear.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply, toolUse } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { median, type Row } from './support';

/** Running, as opposed to gone or a zombie (killed, not yet reaped by whatever adopted it). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** The host pid of the process whose command line is exactly `commandLine`, or 0. */
function hostPid(commandLine: string): number {
  try {
    return Number(execFileSync('pgrep', ['-x', '-f', commandLine], { encoding: 'utf8' }).trim().split('\n')[0]) || 0;
  } catch {
    return 0;
  }
}

export async function interrupt(harness: Harness): Promise<Row[]> {
  const toDead: number[] = [];
  const toNextStep: number[] = [];
  let finished = 0;
  const repetitions = 5;
  for (let repetition = 0; repetition < repetitions; repetition++) {
    const workdir = makeRepo({});
    // A sandboxed command has its own PID namespace: the host finds it by its unique argument.
    const seconds = `3.00${repetition}${Math.floor(Math.random() * 1e6)}`;
    harness.fake.handler = () => reply([toolUse('Bash', { command: `sleep ${seconds} && touch FINISHED` })]);
    const handle = await harness.start({ prompt: 'wait', workdir, toolSummaries: false });
    let pid = 0;
    while (!(pid = hostPid(`sleep ${seconds}`))) await new Promise((resolve) => setTimeout(resolve, 10));
    const sent = performance.now();
    let deadAt = 0;
    const watcher = (async () => {
      while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 5));
      deadAt = performance.now();
    })();
    await handle.executeUpdate('interrupt', { args: [{}] });
    toNextStep.push(performance.now() - sent);
    await watcher;
    toDead.push(deadAt - sent);
    await handle.result();
    // Past the moment the command would have finished: did it?
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 3_500 - (performance.now() - sent))));
    if (existsSync(join(workdir, 'FINISHED'))) finished++;
  }
  return [
    {
      figure:
        "Interrupt: from the `interrupt` update to the running command's process gone, and to the update's answer (the workflow's next step); `sleep 3 && touch FINISHED` interrupted",
      value: `${Math.round(median(toDead))} ms to the command gone, ${Math.round(median(toNextStep))} ms to the next step (medians of ${repetitions}); FINISHED created in ${finished} of ${repetitions}`,
      command: 'npm run bench -- --only interrupt',
    },
  ];
}
