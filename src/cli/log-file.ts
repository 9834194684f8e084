/**
 * Where the logs of the worker `run` embeds go: a file per day under `~/.durable-agent/logs/`
 * (`AGENT_LOG_DIR`; `DURABLE_AGENT_HOME/logs` when that is set), so SDK warnings (an activity attempt that failed, with its stack) never
 * land in the user's terminal. `--verbose` shows them on stderr as well.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import type { LogLevel } from '@temporalio/common';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';

export interface CliLog {
  logger: DefaultLogger;
  path: string;
  close(): Promise<void>;
}

const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** `AGENT_LOG_DIR`, else `logs` in the CLI's state directory (`DURABLE_AGENT_HOME`, default ~/.durable-agent). */
export function logDirectory(environment: NodeJS.ProcessEnv, home = homedir()): string {
  return (
    environment.AGENT_LOG_DIR?.trim() ||
    join(environment.DURABLE_AGENT_HOME?.trim() || join(home, '.durable-agent'), 'logs')
  );
}

export function openCliLog(environment: NodeJS.ProcessEnv, verbose: boolean, now = new Date()): CliLog {
  const requested = environment.AGENT_LOG_LEVEL?.trim().toUpperCase() as LogLevel | undefined;
  const level: LogLevel = requested && LEVELS.includes(requested) ? requested : 'INFO';
  const directory = logDirectory(environment);
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `durable-agent-${now.toISOString().slice(0, 10)}.log`);
  const file = createWriteStream(path, { flags: 'a' });
  file.on('error', () => undefined); // a full disk must not take the session's follower down
  const write = (entry: LogEntry) => {
    const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
    const line = `${time} [${entry.level}] ${entry.message}${entry.meta === undefined ? '' : ` ${format(entry.meta)}`}\n`;
    file.write(line);
    if (verbose) process.stderr.write(line);
  };
  return {
    logger: new DefaultLogger(level, write),
    path,
    close: () => new Promise((resolve) => file.end(() => resolve())),
  };
}
