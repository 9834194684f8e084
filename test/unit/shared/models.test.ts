/**
 * Current models only: the defaults must be names of the installed SDK's `Model` union and
 * absent from its deprecation table. Read from the installed package, so an SDK upgrade that
 * deprecates a default fails here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_MODEL, DEFAULT_SMALL_MODEL, MODEL_TABLE, modelLimits } from '../../../src/shared/models';

const sdkRoot = dirname(require.resolve('@anthropic-ai/sdk'));
const modelUnion = readFileSync(join(sdkRoot, 'resources', 'messages', 'messages.d.ts'), 'utf8').match(
  /export type Model = ([^;]+);/,
)![1]!;
const sdkModels = [...modelUnion.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
const { DEPRECATED_MODELS } = require(join(sdkRoot, 'internal', 'data', 'deprecated-models.js')) as {
  DEPRECATED_MODELS: Record<string, string>;
};

test('the SDK model list was read', () => {
  expect(sdkModels.length).toBeGreaterThan(5);
});

test.each([DEFAULT_MODEL, DEFAULT_SMALL_MODEL, ...Object.keys(MODEL_TABLE)])(
  '%s is a current model of the installed SDK',
  (model) => {
    expect(sdkModels).toContain(model);
    expect(Object.keys(DEPRECATED_MODELS)).not.toContain(model);
  },
);

test('limits come from the table, with overrides and a fallback for unknown models', () => {
  expect(modelLimits(DEFAULT_MODEL)).toEqual(MODEL_TABLE[DEFAULT_MODEL]);
  expect(modelLimits(DEFAULT_MODEL, { contextWindowTokens: 1000 }).contextWindowTokens).toBe(1000);
  expect(modelLimits('some-proxy-model')).toEqual({ contextWindowTokens: 200_000, maxOutputTokens: 64_000 });
});
