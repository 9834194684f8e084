import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../../../support/paths';
import { cli } from '../cli-output';

/** A stand-in for the Temporal CLI: it writes down its arguments and exits with the code they name. */
function fakeTemporalCli(): { path: string; argumentsFile: string } {
  const directory = scratchDir('temporal-cli');
  const argumentsFile = join(directory, 'arguments');
  const path = join(directory, 'temporal');
  writeFileSync(path, `#!/bin/sh\necho "$@" > '${argumentsFile}'\nexit "$2"\n`);
  chmodSync(path, 0o755);
  return { path, argumentsFile };
}

test('the arguments go to the Temporal CLI as given, and its exit code comes back', async () => {
  const { path, argumentsFile } = fakeTemporalCli();
  const previous = process.env.TEMPORAL_CLI_PATH;
  process.env.TEMPORAL_CLI_PATH = path;
  try {
    expect(await cli(['temporal', 'exit-with', '3', '--flag'])).toEqual({ code: 3, stdout: '', stderr: '' });
    expect(readFileSync(argumentsFile, 'utf8')).toBe('exit-with 3 --flag\n');
  } finally {
    if (previous === undefined) delete process.env.TEMPORAL_CLI_PATH;
    else process.env.TEMPORAL_CLI_PATH = previous;
  }
});

test('a TEMPORAL_CLI_PATH that is not an executable is one line (exit 1)', async () => {
  const previous = process.env.TEMPORAL_CLI_PATH;
  process.env.TEMPORAL_CLI_PATH = '/no/such/temporal';
  try {
    expect(await cli(['temporal', 'workflow', 'list'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'durable-agent: TEMPORAL_CLI_PATH=/no/such/temporal is not an executable file.\n',
    });
  } finally {
    if (previous === undefined) delete process.env.TEMPORAL_CLI_PATH;
    else process.env.TEMPORAL_CLI_PATH = previous;
  }
});
