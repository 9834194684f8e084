/**
 * `durable-agent`: the client side of the five roles, one command per file in commands/.
 *
 *   npx durable-agent run --workdir <dir> "<task>"
 */
import type { Command } from './command';
import { approveCommand } from './commands/approve';
import { answerCommand } from './commands/answer';
import { codecServerCommand } from './commands/codec-server';
import { diffCommand } from './commands/diff';
import { endCommand } from './commands/end';
import { forkCommand } from './commands/fork';
import { interruptCommand } from './commands/interrupt';
import { listCommand } from './commands/list';
import { moveCommand } from './commands/move';
import { rewindCommand } from './commands/rewind';
import { runCommand } from './commands/run';
import { sendCommand } from './commands/send';
import { statusCommand } from './commands/status';
import { storePromptCommand } from './commands/store-prompt';
import { temporalCommand } from './commands/temporal';
import { watchCommand } from './commands/watch';
import { UsageError } from './usage-error';

/*
 * Only what parsing the arguments needs is imported at load time: each command imports its own
 * modules when it runs (see command.ts), so `--help`, `status` and `list` never load the worker,
 * its activities, the model SDK or OpenTelemetry (seconds of start-up on a loaded machine).
 */

/** Every command, in the order the usage lists them. */
export const COMMANDS: readonly Command[] = [
  runCommand,
  watchCommand,
  statusCommand,
  sendCommand,
  endCommand,
  interruptCommand,
  approveCommand,
  answerCommand,
  listCommand,
  rewindCommand,
  forkCommand,
  diffCommand,
  moveCommand,
  storePromptCommand,
  temporalCommand,
  codecServerCommand,
];

/** The usage text: each command's lines, then the sections that follow the list (run's options). */
export const USAGE = [
  `Usage:\n${COMMANDS.map((command) => command.usage).join('\n')}`,
  ...COMMANDS.flatMap((command) => (command.details ? [command.details] : [])),
].join('\n\n');

export async function main(argv: string[], environment: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  try {
    const command = COMMANDS.find((candidate) => candidate.name === name);
    if (!command) throw new UsageError(`Unknown command: ${name}`);
    return await command.run(args, environment);
  } catch (error) {
    return reportFailure(error);
  }
}

/** The line a failed command ends with, and its exit code: 2 for wrong arguments, 1 for the rest. */
function reportFailure(error: unknown): number {
  if (error instanceof UsageError) {
    console.error(error.showUsage ? `durable-agent: ${error.message}\n\n${USAGE}` : `durable-agent: ${error.message}`);
    return 2;
  }
  console.error(`durable-agent: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
