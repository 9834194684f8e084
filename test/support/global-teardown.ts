import { readFileSync } from 'node:fs';
import { DEV_SERVER_STATE } from './paths';
import { stopThrowawayPostgres, type ThrowawayPostgres } from './postgres';

export default async function globalTeardown(): Promise<void> {
  let state: { pid?: number; postgres?: ThrowawayPostgres } = {};
  try {
    state = JSON.parse(readFileSync(DEV_SERVER_STATE, 'utf8')) as typeof state;
  } catch {
    return; // not started
  }
  try {
    if (state.pid) process.kill(state.pid, 'SIGTERM');
  } catch {
    // already gone
  }
  if (state.postgres) stopThrowawayPostgres(state.postgres);
}
