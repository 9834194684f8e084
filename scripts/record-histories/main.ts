/**
 * Records the histories that test/replay replays: one per loop path, from real runs against a
 * real dev server and the fake model. Run after a deliberate change of workflow behaviour, and
 * keep the old files (renamed with a version prefix, e.g. v1-…): running workflows still have
 * the old histories, and `patched()` branches must keep replaying them.
 *
 *   npm run record-histories                # every scenario
 *   npm run record-histories -- max-turns   # only the ones named
 *   npm run record-histories -- --prefix plan-rules- max-turns   # written as plan-rules-max-turns.json
 *
 * Scenarios: loop-scenarios.ts, steering-scenarios.ts, workspace-scenarios.ts, host-scenarios.ts, capability-scenarios.ts,
 * mcp-scenarios.ts, lease-scenarios.ts, reset-scenarios.ts, turn-cost-scenarios.ts, plan-scenarios.ts, budget-scenarios.ts,
 * background-scenarios.ts, rate-limit-scenarios.ts and worktree-scenarios.ts.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../../src/workflow-bundle';
import { startDevServer } from '../../src/dev-server/dev-server';
import { resolveTemporalCli } from '../../src/dev-server/temporal-cli';
import { freePort } from '../../test/support/global-setup';
import { Harness, makeRepo } from '../../test/support/harness';
import { PROJECT_ROOT, scratchDir, TEST_TMP, WORKFLOW_BUNDLE_PATH } from '../../test/support/paths';
import { budgetScenarios } from './budget-scenarios';
import { capabilityScenarios } from './capability-scenarios';
import { loopScenarios } from './loop-scenarios';
import { hostScenarios } from './host-scenarios';
import { leaseScenarios } from './lease-scenarios';
import { mcpScenarios } from './mcp-scenarios';
import { planScenarios } from './plan-scenarios';
import { backgroundScenarios } from './background-scenarios';
import { rateLimitScenarios } from './rate-limit-scenarios';
import { type Hosts, type Scenario, writeBinaryFiles } from './scenario';
import { resetScenarios } from './reset-scenarios';
import { steeringScenarios } from './steering-scenarios';
import { structuredScenarios } from './structured-scenarios';
import { turnCostScenarios } from './turn-cost-scenarios';
import { workspaceScenarios } from './workspace-scenarios';
import { worktreeScenarios } from './worktree-scenarios';

/** New histories record today's workflow code (test/fixtures/histories/README.md says when they move). */
const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'histories', 'current');

const scenarios: Scenario[] = [
  ...loopScenarios,
  ...steeringScenarios,
  ...workspaceScenarios,
  ...hostScenarios,
  ...capabilityScenarios,
  ...mcpScenarios,
  ...leaseScenarios,
  ...resetScenarios,
  ...turnCostScenarios,
  ...planScenarios,
  ...budgetScenarios,
  ...backgroundScenarios,
  ...rateLimitScenarios,
  ...structuredScenarios,
  ...worktreeScenarios,
];

async function main(): Promise<void> {
  const cli = await resolveTemporalCli(console.log);
  if (!cli) throw new Error('No Temporal CLI');
  const port = await freePort();
  const server = await startDevServer({ cliPath: cli.path, port });
  process.env.TEMPORAL_ADDRESS = server.address;
  mkdirSync(join(WORKFLOW_BUNDLE_PATH, '..'), { recursive: true });
  writeFileSync(WORKFLOW_BUNDLE_PATH, (await bundleWorkflowCode(workflowBundleOptions())).code);
  process.env.AGENT_WORKFLOW_BUNDLE = WORKFLOW_BUNDLE_PATH;
  mkdirSync(FIXTURES, { recursive: true });
  try {
    const { values, positionals: only } = parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: { prefix: { type: 'string', default: '' } },
    });
    const prefix = values.prefix;
    for (const scenario of scenarios.filter((candidate) => only.length === 0 || only.includes(candidate.name))) {
      const harness = await Harness.start(scenario.handler);
      const hosts = scenario.hosts ? await startHosts(harness) : (await harness.startWorker(), undefined);
      scenario.setup?.(harness);
      const workdir = makeRepo(scenario.files);
      writeBinaryFiles(workdir, scenario.binaryFiles);
      const handle = await harness.start({
        prompt: `Scenario ${scenario.name}`,
        workdir,
        ...scenario.input,
        ...(await scenario.prepareInput?.(harness, workdir)),
      });
      // A session that ends (or fails) before its drive's conditions hold must not hang the recorder.
      const driving = scenario.drive?.(handle, harness, hosts) ?? Promise.resolve();
      driving.catch(() => undefined); // what it fails with once the session is over no longer matters
      // A scenario may record a session that fails (invalid input): its history replays all the same.
      const ending = handle.result().then(
        (result: { reason: string }) => result,
        (error: Error & { cause?: Error }) => ({ reason: `failed (${error.cause?.message ?? error.message})` }),
      );
      await Promise.race([driving, ending]);
      const result = await ending;
      await scenario.after?.(handle, harness);
      // The Temporal CLI's JSON is the format users export for replay too (`historyFromJSON` reads it).
      const show = async (runId: string, workflowId = handle.workflowId) =>
        (
          await promisify(execFile)(
            cli.path,
            [
              'workflow',
              'show',
              '--address',
              server.address,
              '--workflow-id',
              workflowId,
              ...(runId ? ['--run-id', runId] : []),
              '--output',
              'json',
            ],
            {
              maxBuffer: 64 * 1024 * 1024,
            },
          )
        ).stdout;
      const stdout = await show(handle.firstExecutionRunId);
      writeFileSync(join(FIXTURES, `${prefix}${scenario.name}.json`), stdout);
      for (const toolUseId of scenario.childToolUseIds ?? []) {
        writeFileSync(
          join(FIXTURES, `${prefix}${scenario.name}-child-${toolUseId}.json`),
          await show('', `${handle.workflowId}-task-${toolUseId}`),
        );
      }
      const lastRunId = (await handle.describe()).runId;
      if (lastRunId !== handle.firstExecutionRunId)
        writeFileSync(join(FIXTURES, `${prefix}${scenario.name}-last-run.json`), await show(lastRunId));
      const transitions = (await handle
        .query<{ transitions: string[]; contextEdits: string[] }>('state')
        .catch(() => undefined)) ?? { transitions: [], contextEdits: [] };
      console.log(
        `${scenario.name}: ${result.reason}, ${(JSON.parse(stdout) as { events: unknown[] }).events.length} events, ` +
          `transitions ${transitions.transitions.join(' ')}; context edits ${transitions.contextEdits.join(' ')}`,
      );
      await harness.stop();
    }
  } finally {
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

/** host-a and host-b, each with its own workspace root (clones go there; workdirs of the scenarios lie in the test scratch space). */
async function startHosts(harness: Harness): Promise<Hosts> {
  const workers = new Map<string, Awaited<ReturnType<Harness['startWorker']>>>();
  for (const hostId of ['host-a', 'host-b'])
    workers.set(
      hostId,
      await harness.startWorker({ hostId, workspaceRoots: [scratchDir(`root-${hostId}`), TEST_TMP] }),
    );
  return {
    async stopHostQueue(hostId) {
      const worker = workers.get(hostId)!.host!;
      worker.shutdown();
      while (worker.getState() !== 'STOPPED') await new Promise((resolve) => setTimeout(resolve, 50));
    },
  };
}
