/**
 * With a key set, the dev server `durable-agent run` starts gets a codec server beside it, so its
 * Web UI shows payloads decrypted (`--ui-codec-endpoint`). Like the dev server it outlives the
 * command (the UI link keeps working); a second run reuses the one that answers.
 *
 * It wants a token like any other: sandboxed commands with network share this machine's loopback,
 * and the dev server hands any of them a session's encrypted history, so a codec server open to
 * 127.0.0.1 would decrypt it for them. The token is AGENT_CODEC_AUTH, else one made once and kept
 * owner-only in the state directory (where no sandbox looks), so later runs and the temporal CLI
 * find it. The dev server's UI cannot send a bearer token; a browser signs in at /login instead.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isListening } from '../dev-server/dev-server';
import { parseCodecToken } from './codec-auth';

const BIN = join(__dirname, '..', '..', 'bin', 'durable-agent.js');
/** What the codec server may see of this environment: its keys and settings, nothing else. */
const PASSED = [
  'PATH',
  'HOME',
  'AGENT_ENCRYPTION_KEY',
  'AGENT_ENCRYPTION_KEY_FILE',
  'TEMPORAL_NAMESPACE',
  'AGENT_CODEC_NAMESPACES',
];

export interface LocalCodecServer {
  endpoint: string;
  /** What to tell the user: that it was started (or what answers instead), and how to use it. */
  message: string;
}

export async function ensureCodecServer(
  environment: NodeJS.ProcessEnv,
  stateDir: string,
  uiPort: number,
): Promise<LocalCodecServer> {
  const port = Number(environment.DURABLE_AGENT_CODEC_PORT ?? 8081);
  const endpoint = `http://127.0.0.1:${port}`;
  mkdirSync(stateDir, { recursive: true });
  const { token, where, shell } = localToken(environment, stateDir);
  const usage =
    `To see payloads decoded in the Web UI, sign this browser in once at ${endpoint}/login with the token (${where}) ` +
    `and turn on "include cross-origin credentials" in the UI's codec server settings; ` +
    `the temporal CLI: --codec-endpoint ${endpoint} --codec-auth "Bearer ${shell}"`;
  if (await isListening(`127.0.0.1:${port}`)) {
    return { endpoint, message: `${await describeRunning(endpoint, token)}\n${usage}` };
  }

  const log = openSync(join(stateDir, 'codec-server.log'), 'a');
  const origins =
    environment.AGENT_CODEC_CORS_ORIGINS?.trim() || `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`;
  const child = spawn(process.execPath, [BIN, 'codec-server', '--port', String(port)], {
    detached: true,
    stdio: ['ignore', log, log],
    env: {
      ...Object.fromEntries(PASSED.filter((name) => environment[name]).map((name) => [name, environment[name]])),
      AGENT_CODEC_CORS_ORIGINS: origins,
      AGENT_CODEC_AUTH: token,
    },
  });
  child.unref();
  for (let waited = 0; !(await isListening(`127.0.0.1:${port}`, 200)); waited += 100) {
    if (child.exitCode !== null || waited > 20_000) {
      throw new Error(`the codec server did not start on port ${port} (see ${join(stateDir, 'codec-server.log')})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    endpoint,
    message:
      `Started a codec server for the Web UI (pid ${child.pid}, ${endpoint}): it decrypts with AGENT_ENCRYPTION_KEY, ` +
      `for its token only. Stop it with: kill ${child.pid}\n${usage}`,
  };
}

/** The token, where it is, and a shell expression for it: it is never printed. */
function localToken(environment: NodeJS.ProcessEnv, stateDir: string): { token: string; where: string; shell: string } {
  const given = parseCodecToken(environment.AGENT_CODEC_AUTH);
  if (given) return { token: given, where: 'in AGENT_CODEC_AUTH', shell: '$AGENT_CODEC_AUTH' };
  const file = join(stateDir, 'codec-token');
  try {
    // 'wx': made once, never overwritten (nor followed through a link someone left there).
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new Error(`cannot keep the codec server's token in ${file}: ${(error as Error).message}`);
    }
  }
  const token = parseCodecToken(readFileSync(file, 'utf8'), file);
  if (!token) throw new Error(`${file} is empty: delete it, and the next run makes a new token`);
  return { token, where: `in ${file}`, shell: `$(cat ${file})` };
}

/** What answers on the port already: ours (it takes the token), an open one, or something else. */
async function describeRunning(endpoint: string, token: string): Promise<string> {
  const status = (headers: Record<string, string>) =>
    fetch(`${endpoint}/decode`, {
      method: 'POST',
      body: '{"payloads":[]}',
      headers,
      signal: AbortSignal.timeout(2000),
    }).then(
      (response) => response.status,
      () => 0,
    );
  if ((await status({})) === 200) {
    return `The codec server already on ${endpoint} decrypts without a token (an older durable-agent's, or --insecure-no-auth): anything on this machine, sandboxed commands included, can use it. Stop it, and the next run starts one that wants the token.`;
  }
  if ((await status({ Authorization: `Bearer ${token}` })) === 200) {
    return `Its Web UI decodes payloads with the codec server already on ${endpoint}.`;
  }
  return `Something on ${endpoint} refuses this token (a codec server with another AGENT_CODEC_AUTH?): the Web UI decodes through it only with that one's token.`;
}
