/**
 * What the isolation suites share: a worker process with marker secrets in its environment and
 * home, a fake model that scripts each session by the role its prompt names (`ROLE:<name>`), the
 * racer that swaps a directory for a symlink to outside, and ways to wait for what a sandboxed
 * command does on disk without sleeping.
 */
import type { ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TranscriptEntry } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import {
  byTurn,
  isToolSummary,
  reply,
  text,
  type FakeHandler,
  type FakeReply,
  type RecordedRequest,
} from './fake-anthropic';
import { DEFAULT_SANDBOX_UID } from '../../src/worker-config';
import { Harness, makeRepo, uniqueId, waitForLine } from './harness';
import { PROJECT_ROOT, scratchDir } from './paths';

export interface Secrets {
  apiKey: string;
  privateKey: string;
  authorizedKey: string;
}

export function secrets(): Secrets {
  const tag = uniqueId('s');
  return {
    apiKey: `sk-ant-api03-ISOLATION-${tag}`,
    privateKey: `PRIVATE-KEY-${tag}`,
    authorizedKey: `ssh-rsa OWNER-${tag}`,
  };
}

/** A worker home with the secrets an attacker wants: ~/.ssh/id_rsa and authorized_keys. */
export function workerHome(secret: Secrets): string {
  const home = scratchDir('worker-home');
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  writeFileSync(join(home, '.ssh', 'id_rsa'), `${secret.privateKey}\n`, { mode: 0o600 });
  writeFileSync(join(home, '.ssh', 'authorized_keys'), `${secret.authorizedKey}\n`);
  for (let index = 0; index < 50; index++) writeFileSync(join(home, '.ssh', `k${index}`), `${secret.authorizedKey}\n`);
  return home;
}

/** Scripts by role: the session whose first message names `ROLE:<role>` gets that script. */
export class RoleRouter {
  private readonly scripts = new Map<string, FakeHandler>();

  set(role: string, replies: Parameters<typeof byTurn>[0] | FakeHandler): void {
    this.scripts.set(role, typeof replies === 'function' ? replies : byTurn(replies));
  }

  readonly handler: FakeHandler = (request) => {
    if (isToolSummary(request.body)) return reply([text('A step.')]);
    const role = roleOf(request);
    const script = role ? this.scripts.get(role) : undefined;
    return script ? script(request) : reply([text(`(no script for role ${role ?? 'none'})`)]);
  };
}

/** The role the latest user message naming one gives (a fork's prompt comes after its original's). */
export function roleOf(request: RecordedRequest): string | undefined {
  for (const message of [...request.body.messages].reverse()) {
    if (message.role !== 'user') continue;
    const content =
      typeof message.content === 'string'
        ? message.content
        : message.content.map((block) => block.text ?? '').join(' ');
    const role = /ROLE:([a-z0-9-]+)/.exec(content)?.[1];
    if (role) return role;
  }
  return undefined;
}

/** A sandboxed worker process with the secrets in its environment and home. */
export async function isolatedWorker(
  harness: Harness,
  secret: Secrets,
  home: string,
  environment: NodeJS.ProcessEnv = {},
): Promise<ChildProcess> {
  const worker = harness.spawnWorker({
    AGENT_SANDBOX: 'bwrap',
    ANTHROPIC_API_KEY: secret.apiKey,
    HOME: home,
    ...environment,
  });
  await waitForLine(worker, /durable-agent worker: task queue/);
  return worker;
}

/** The racer's source, for a workdir: sandboxed commands cannot see this repository. */
/**
 * A victim's workdir (`workdir`, holding `files`) inside the racing session's own (`outer`, holding
 * racer.py). Two sessions on one workdir take turns (workdir leases), so an attacker races from
 * the directory around it, which is another workdir with a lease of its own. `workdir` is given
 * to the sandbox's user, as the worker hands over a root-owned workdir, so that the racer, which
 * starts first, can swap entries in it.
 */
export function racedWorkdir(files: Record<string, string>): { outer: string; workdir: string } {
  const inner = Object.fromEntries(Object.entries(files).map(([path, content]) => [`w/${path}`, content]));
  const outer = makeRepo({ 'racer.py': racerSource(), ...inner });
  const workdir = join(outer, 'w');
  if (process.getuid?.() === 0) chownSync(workdir, DEFAULT_SANDBOX_UID, DEFAULT_SANDBOX_UID);
  return { outer, workdir };
}

export function racerSource(): string {
  return readFileSync(join(PROJECT_ROOT, 'test', 'support', 'racer.py'), 'utf8');
}

/** Bash that races `directory` against a link to `target` until `stop` exists in the workdir. */
export function raceCommand(directory: string, target: string, stop: string): FakeReply {
  return reply([
    {
      type: 'tool_use',
      name: 'Bash',
      input: { command: `python3 racer.py ${directory} ${target} 170 ${stop}`, timeout: 180_000 },
    },
  ]);
}

/** Resolves once `path` exists: fs.watch on its directory, no polling. */
export function appears(path: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dirname(path), () => {
      if (existsSync(path)) {
        watcher.close();
        resolve();
      }
    });
    if (existsSync(path)) {
      watcher.close();
      resolve();
    }
  });
}

export async function transcriptOf(harness: Harness, workflowId: string): Promise<TranscriptEntry[]> {
  return (await harness.client.workflow.getHandle(workflowId).query(transcriptQuery, { limit: 1000 })).entries;
}
