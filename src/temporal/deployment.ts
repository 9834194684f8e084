/**
 * Safe deploys with Temporal Worker Versioning, on when `AGENT_WORKER_DEPLOYMENT` names the
 * deployment: every worker polls as version `<deployment>:<build id>` (`AGENT_BUILD_ID`, default
 * the package version and the git commit), and a session is pinned to the version it started on,
 * so new worker code never replays or continues a running session unless the deployment is told
 * to move it. New sessions go to the deployment's current version; a worker whose deployment has
 * none yet makes its own version current (the first deploy), and later versions become current
 * when an operator says so (`temporal worker deployment set-current-version`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Connection } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';

export interface DeploymentSetting {
  deploymentName: string;
  buildId: string;
}

const PROJECT_ROOT = join(__dirname, '..', '..');
const NAME = /^[A-Za-z0-9._+-]{1,200}$/;

export function deploymentSetting(environment: NodeJS.ProcessEnv): DeploymentSetting | undefined {
  const deploymentName = environment.AGENT_WORKER_DEPLOYMENT?.trim();
  if (!deploymentName) return undefined;
  const buildId = environment.AGENT_BUILD_ID?.trim() || defaultBuildId();
  for (const [name, value] of [
    ['AGENT_WORKER_DEPLOYMENT', deploymentName],
    ['AGENT_BUILD_ID', buildId],
  ] as const) {
    if (!NAME.test(value)) throw new Error(`${name}=${value}: use letters, digits and . _ + - (no ':' or spaces)`);
  }
  return { deploymentName, buildId };
}

/** `0.1.0+3f9c2ab`: the package version and the commit, or `+nogit` outside a git checkout. */
export function defaultBuildId(root = PROJECT_ROOT): string {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  let commit = 'nogit';
  try {
    commit =
      execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() || commit;
  } catch {
    // An image without .git: set AGENT_BUILD_ID at build time instead.
  }
  return `${version}+${commit}`;
}

/** The Worker options of a versioned worker: sessions pinned to the version they started on. */
export function versionedWorkerOptions(deployment: DeploymentSetting): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  return {
    workerDeploymentOptions: { version: deployment, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' },
  };
}

/**
 * Waits until the server has seen this version poll every task queue it serves. A version is
 * registered at its first poll, but the server refuses to make it current while a task queue of
 * the current version has no poller of it yet ("missing active task queues"): a worker polls its
 * queues (sessions, host, workdir leases) one after another, so the version line it prints, which
 * tells operators they may now run set-current-version, waits for all of them. False at the deadline.
 */
export async function waitForVersionTaskQueues(
  connection: Connection,
  namespace: string,
  deployment: DeploymentSetting,
  taskQueues: string[],
  deadlineMs = 30_000,
): Promise<boolean> {
  const service = connection.workflowService;
  for (
    const started = Date.now();
    Date.now() - started <= deadlineMs;
    await new Promise((resolve) => setTimeout(resolve, 250))
  ) {
    const described = await service
      .describeWorkerDeploymentVersion({ namespace, deploymentVersion: deployment })
      .catch(() => undefined);
    const polled = new Set((described?.versionTaskQueues ?? []).map((queue) => queue.name));
    if (taskQueues.every((queue) => polled.has(queue))) return true;
  }
  return false;
}

/**
 * The first deploy: a deployment without a current version sends new sessions nowhere, so the
 * first worker makes its own version current. The version exists once the server has seen the
 * worker poll: tried for a while. Never replaces a current version another build holds.
 */
export async function becomeCurrentIfNone(
  connection: Connection,
  namespace: string,
  deployment: DeploymentSetting,
  identity: string,
  deadlineMs = 30_000,
): Promise<'became_current' | 'already_current' | 'other_current'> {
  const service = connection.workflowService;
  for (const started = Date.now(); ; await new Promise((resolve) => setTimeout(resolve, 500))) {
    const described = await service
      .describeWorkerDeployment({ namespace, deploymentName: deployment.deploymentName })
      .catch(() => undefined);
    const current = described?.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion;
    if (current?.buildId) return current.buildId === deployment.buildId ? 'already_current' : 'other_current';
    try {
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: deployment.deploymentName,
        buildId: deployment.buildId,
        identity,
        ...(described ? { conflictToken: described.conflictToken } : {}),
      });
      return 'became_current';
    } catch (error) {
      // The version is not registered yet (no poll seen), or another worker won the race: look again.
      if (Date.now() - started > deadlineMs)
        throw new Error(
          `could not make ${deployment.deploymentName}:${deployment.buildId} the current version: ${(error as Error).message}`,
        );
    }
  }
}
