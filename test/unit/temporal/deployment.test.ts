import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultBuildId, deploymentSetting, versionedWorkerOptions } from '../../../src/temporal/deployment';

describe('Worker Versioning settings', () => {
  test('off without AGENT_WORKER_DEPLOYMENT; on, sessions are pinned to the build', () => {
    expect(deploymentSetting({})).toBeUndefined();
    const setting = deploymentSetting({ AGENT_WORKER_DEPLOYMENT: 'agents', AGENT_BUILD_ID: '1.4.0' })!;
    expect(setting).toEqual({ deploymentName: 'agents', buildId: '1.4.0' });
    expect(versionedWorkerOptions(setting)).toEqual({
      workerDeploymentOptions: {
        version: { deploymentName: 'agents', buildId: '1.4.0' },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'PINNED',
      },
    });
  });

  test('the default build id is the package version and the commit; outside git, it says so', () => {
    expect(deploymentSetting({ AGENT_WORKER_DEPLOYMENT: 'agents' })!.buildId).toMatch(
      /^\d+\.\d+\.\d+\+([0-9a-f]{12}|nogit)$/,
    );
    const directory = mkdtempSync(join(tmpdir(), 'no-git-'));
    writeFileSync(join(directory, 'package.json'), '{"version":"2.0.1"}');
    expect(defaultBuildId(directory)).toBe('2.0.1+nogit');
  });

  test('a name Temporal would misread fails naming the variable', () => {
    expect(() => deploymentSetting({ AGENT_WORKER_DEPLOYMENT: 'agents:prod' })).toThrow(
      "AGENT_WORKER_DEPLOYMENT=agents:prod: use letters, digits and . _ + - (no ':' or spaces)",
    );
    expect(() => deploymentSetting({ AGENT_WORKER_DEPLOYMENT: 'agents', AGENT_BUILD_ID: 'v 1' })).toThrow(
      'AGENT_BUILD_ID=v 1',
    );
  });
});
