/**
 * With a key set, the dev server `durable-agent run` starts gets a codec server beside it, so its
 * Web UI shows payloads decrypted (`--ui-codec-endpoint`). Like the dev server it outlives the
 * command (the UI link keeps working); a second run reuses the one that answers.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { isListening } from '../dev-server/dev-server';

const BIN = join(__dirname, '..', '..', 'bin', 'durable-agent.js');
/** What the codec server may see of this environment: its keys and settings, nothing else. */
const PASSED = ['PATH', 'HOME', 'AGENT_ENCRYPTION_KEY', 'AGENT_ENCRYPTION_KEY_FILE', 'AGENT_CODEC_AUTH'];

export async function ensureCodecServer(environment: NodeJS.ProcessEnv, stateDir: string, uiPort: number): Promise<{ endpoint: string; started?: string }> {
  const port = Number(environment.DURABLE_AGENT_CODEC_PORT ?? 8081);
  const endpoint = `http://127.0.0.1:${port}`;
  if (await isListening(`127.0.0.1:${port}`)) return { endpoint };
  mkdirSync(stateDir, { recursive: true });
  const log = openSync(join(stateDir, 'codec-server.log'), 'a');
  const origins = environment.AGENT_CODEC_CORS_ORIGINS?.trim() || `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`;
  const child = spawn(process.execPath, [BIN, 'codec-server', '--port', String(port)], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...Object.fromEntries(PASSED.filter((name) => environment[name]).map((name) => [name, environment[name]])), AGENT_CODEC_CORS_ORIGINS: origins },
  });
  child.unref();
  for (let waited = 0; !(await isListening(`127.0.0.1:${port}`, 200)); waited += 100) {
    if (child.exitCode !== null || waited > 20_000) throw new Error(`the codec server did not start on port ${port} (see ${join(stateDir, 'codec-server.log')})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { endpoint, started: `Started a codec server for the Web UI (pid ${child.pid}, ${endpoint}): it decrypts with AGENT_ENCRYPTION_KEY. Stop it with: kill ${child.pid}` };
}
