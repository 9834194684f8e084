/**
 * The flags: each behaviour read from its patch, every patch documented, and no patch id asked
 * anywhere but through features.ts (a literal elsewhere would escape the retirement path).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as features from '../../../../src/workflows/core/features';
import { readFeatures, RUN_PATCHES, type RunPatch } from '../../../../src/workflows/core/features';
import { PROJECT_ROOT } from '../../../support/paths';

const patchIds = [
  ...RUN_PATCHES,
  ...Object.entries(features)
    .filter(([name, value]) => name.endsWith('_PATCH') && typeof value === 'string')
    .map(([, value]) => value as string),
];

test('run patches are asked once each, in their recorded order', () => {
  const asked: RunPatch[] = [];
  readFeatures((id) => {
    asked.push(id);
    return true;
  });
  expect(asked).toEqual(['recovery-layers', 'steering', 'hardening', 'durable-workspace', 'stop-hook-limit']);
});

test('a session from before `hardening` has none of its six behaviours, and keeps the others it was recorded with', () => {
  const before = readFeatures((id) => id !== 'hardening' && id !== 'durable-workspace' && id !== 'stop-hook-limit');
  expect(before).toEqual({
    recoveryLayers: true,
    steering: true,
    cancellationEndsWithResult: false,
    continueAsNewAtEveryBoundary: false,
    batchWaitsForEveryCall: false,
    contextEditsDegradeAndPace: false,
    stopHookBlockKeepsCompactBudget: false,
    learnsContextWindow: false,
    durableWorkspace: false,
    stopHookLimit: false,
  });
  expect(Object.values(readFeatures(() => true)).every(Boolean)).toBe(true);
});

test('every patch id is in docs/patches-and-flags.md', () => {
  const document = readFileSync(join(PROJECT_ROOT, 'docs', 'patches-and-flags.md'), 'utf8');
  expect(patchIds.length).toBeGreaterThan(10);
  for (const id of patchIds) expect(document).toContain(`| \`${id}\` |`);
});

function workflowSources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? workflowSources(join(directory, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(directory, entry.name)]
        : [],
  );
}

test('workflow code asks patched() only with an id declared in features.ts', () => {
  const offenders = workflowSources(join(PROJECT_ROOT, 'src', 'workflows')).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\*|\/\/)/.test(line) && /patched\(\s*['"]/.test(line))
      .map((line) => `${file}: ${line.trim()}`),
  );
  expect(offenders).toEqual([]);
});
