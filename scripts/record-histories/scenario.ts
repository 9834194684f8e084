/** A recorded path: the repository, the scripted model, the input, and how it is steered. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentState } from '../../src/shared/contract';
import { reply, text, type FakeHandler } from '../../test/support/fake-anthropic';
import type { Harness } from '../../test/support/harness';

export interface Scenario {
  name: string;
  files: Record<string, string>;
  /** Files with bytes rather than text (an image). */
  binaryFiles?: Record<string, Buffer>;
  handler: FakeHandler;
  input?: Record<string, unknown>;
  /** Sets up the fake API before the session starts (its limits). */
  setup?: (harness: Harness) => void;
  /** Input fields worked out once the worker runs (a fork reads its original first), given the scenario's workdir. */
  prepareInput?: (harness: Harness, workdir?: string) => Promise<Record<string, unknown>>;
  /** Two workers as hosts host-a and host-b (each its own workspace root) instead of one worker. */
  hosts?: boolean;
  /** Sub-agents whose histories are recorded too (`<name>-child-<toolUseId>.json`), by their Task call's id. */
  childToolUseIds?: string[];
  /** Steers the running session (signals, updates, cancellation) before its result is awaited. */
  drive?: (handle: WorkflowHandle, harness: Harness, hosts?: Hosts) => Promise<void>;
  /** Once the session ended: what makes its last run (a reset), awaited before the histories are written. */
  after?: (handle: WorkflowHandle, harness: Harness) => Promise<void>;
}

/** The hosts of a scenario with `hosts`. */
export interface Hosts {
  /** The host's queue is no longer served (its worker for that queue stops); its shared-queue worker goes on. */
  stopHostQueue(hostId: string): Promise<void>;
}

export async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<void> {
  for (;;) {
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state && predicate(state)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function sequence(replies: (() => ReturnType<FakeHandler>)[]): FakeHandler {
  let next = 0;
  return () => (replies[next++] ?? (() => reply([text('(end)')])))();
}

export function writeBinaryFiles(workdir: string, files: Record<string, Buffer> = {}): void {
  for (const [path, bytes] of Object.entries(files)) writeFileSync(join(workdir, path), bytes);
}
