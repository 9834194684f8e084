import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(__dirname, '..', '..');
/** Scratch space of test runs, inside the project (ignored by git) so CI leaves nothing behind elsewhere. */
export const TEST_TMP = join(PROJECT_ROOT, '.test-tmp');
export const WORKFLOW_BUNDLE_PATH = join(TEST_TMP, 'workflow-bundle.js');
export const DEV_SERVER_STATE = join(TEST_TMP, 'dev-server.json');

export function scratchDir(prefix: string): string {
  mkdirSync(TEST_TMP, { recursive: true });
  return mkdtempSync(join(TEST_TMP, `${prefix}-`));
}
