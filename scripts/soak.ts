/**
 * The full soak test (not part of `npm test`, which runs a short one):
 *
 *   npm run soak                       # 300 turns, 10 SIGKILLs
 *   npm run soak -- --turns 500 --kills 20 --seed 3
 *
 * A scripted session grows the context to ~150K tokens with compactions and continue-as-new on
 * the way while the worker is SIGKILLed at random moments and restarted. It fails unless the
 * session completes with the repository exactly as an uncrashed run leaves it, no payload over
 * 512 KB and every run's history under 10 MB. The figures are its last line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../src/workflow-bundle';
import { startDevServer } from '../src/dev-server/dev-server';
import { resolveTemporalCli } from '../src/dev-server/temporal-cli';
import { freePort } from '../test/support/global-setup';
import { TEST_TMP, WORKFLOW_BUNDLE_PATH } from '../test/support/paths';
import { formatFigures, runSoak } from '../test/support/soak';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      turns: { type: 'string' },
      kills: { type: 'string' },
      seed: { type: 'string' },
      'filler-chars': { type: 'string' },
    },
  });
  const turns = Number(values.turns ?? 300);
  const kills = Number(values.kills ?? 10);
  const cli = await resolveTemporalCli(console.log);
  if (!cli) throw new Error('No Temporal CLI (see README "Tests")');
  mkdirSync(TEST_TMP, { recursive: true });
  const port = await freePort();
  const server = await startDevServer({
    cliPath: cli.path,
    port,
    dbFilename: join(TEST_TMP, `soak-${port}.db`),
    logFile: join(TEST_TMP, 'soak-dev-server.log'),
  });
  process.env.TEMPORAL_ADDRESS = server.address;
  writeFileSync(WORKFLOW_BUNDLE_PATH, (await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quiet })).code);
  process.env.AGENT_WORKFLOW_BUNDLE = WORKFLOW_BUNDLE_PATH;
  try {
    const figures = await runSoak({
      turns,
      kills,
      // ~6,500 characters of model text a turn: the context grows past 150K tokens and reaches the
      // autocompact threshold (~179K on a 200K window) about every 110 turns, so it compacts on
      // the way (snip, at 400 messages, would otherwise bound it first).
      fillerChars: Number(values['filler-chars'] ?? 6500),
      continueAsNewAfterTurns: 100,
      seed: Number(values.seed ?? 20261129),
      log: (line) => console.log(line),
    });
    const failures = [
      ...(figures.repositoryMatches ? [] : ['the repository differs from an uncrashed run']),
      ...(figures.kills >= kills ? [] : [`only ${figures.kills} kills`]),
      ...(figures.maxEventBytes < 512 * 1024 ? [] : [`an event of ${figures.maxEventBytes} bytes`]),
      ...(figures.maxRunHistoryBytes < 10 * 1024 * 1024
        ? []
        : [`a run history of ${figures.maxRunHistoryBytes} bytes`]),
    ];
    if (failures.length) console.log(`SOAK FAILED: ${failures.join('; ')}`);
    console.log(`${failures.length ? 'FAIL' : 'PASS'} ${formatFigures(figures)}`);
    return failures.length ? 1 : 0;
  } finally {
    await server.stop();
  }
}

const quiet = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message: string) => console.error(message),
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
