/**
 * The CLI in this process, as a user sees it: what `main` prints on stdout and stderr (through
 * console.log and console.error) and the exit code it returns. A fake client for the commands
 * that take one: each handle call is recorded, and answered by `answers`.
 */
import type { Client } from '@temporalio/client';
import { main } from '../../../src/cli/main';

export interface CliOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `work` with console.log and console.error captured; lines joined as the terminal shows them. */
export async function captured<T>(work: () => Promise<T>): Promise<{ result: T; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void out.push(parts.join(' ')));
  const error = jest
    .spyOn(console, 'error')
    .mockImplementation((...parts: unknown[]) => void err.push(parts.join(' ')));
  try {
    const result = await work();
    return { result, stdout: out.map((line) => `${line}\n`).join(''), stderr: err.map((line) => `${line}\n`).join('') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** `durable-agent <args>` with `environment` (no Temporal address: nothing may connect). */
export async function cli(args: string[], environment: NodeJS.ProcessEnv = {}): Promise<CliOutput> {
  const { result, stdout, stderr } = await captured(() => main(args, { PATH: process.env.PATH, ...environment }));
  return { code: result, stdout, stderr };
}

/** A usage error as main prints it: the message, then the whole usage text. */
export const withUsage = (message: string) =>
  expect.stringMatching(new RegExp(`^durable-agent: ${escape(message)}\\n\\nUsage:\\n`));

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface HandleCall {
  method: string;
  workflowId: string;
  args: unknown[];
}

/** A client whose handles record each call and answer it with `answers[method]` (a value, or a thrown error). */
export function fakeClient(answers: Record<string, unknown> = {}): { client: Client; calls: HandleCall[] } {
  const calls: HandleCall[] = [];
  const handle = (workflowId: string) =>
    new Proxy(
      {},
      {
        // Not a promise: `then` stays undefined, so the handle is never awaited as one.
        get: (_target, method: string) =>
          method === 'then'
            ? undefined
            : async (...args: unknown[]) => {
                calls.push({ method, workflowId, args });
                const answer = answers[method];
                if (answer instanceof Error) throw answer;
                return answer;
              },
      },
    );
  const client = { workflow: { getHandle: (workflowId: string) => handle(workflowId) } } as unknown as Client;
  return { client, calls };
}
