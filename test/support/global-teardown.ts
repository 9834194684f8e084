import { readFileSync } from 'node:fs';
import { DEV_SERVER_STATE } from './paths';

export default async function globalTeardown(): Promise<void> {
  try {
    const { pid } = JSON.parse(readFileSync(DEV_SERVER_STATE, 'utf8')) as { pid: number };
    process.kill(pid, 'SIGTERM');
  } catch {
    // not started, or already gone
  }
}
