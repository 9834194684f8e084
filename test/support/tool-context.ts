/** What a tool sees of a session when it is called directly (unit tests, the sandbox bench). */
import { unconfined } from '../../src/sandbox/command-sandbox';
import { LocalEffectJournal } from '../../src/store/effect-journal';
import type { ToolContext } from '../../src/activities/tools/tool';
import { scratchDir } from './paths';

/** A call in `workdir`, unconfined unless `overrides` name a sandbox; a fresh journal unless given. */
export function toolContext(workdir: string, overrides: Partial<ToolContext> = {}): ToolContext {
  const toolUseId = overrides.toolUseId ?? `toolu_${Math.random().toString(36).slice(2)}`;
  return {
    sessionId: 'session-1',
    toolUseId,
    callKey: `run-1/${toolUseId}`, // a retry of the call is the same call: same key
    workdir,
    attempt: 1,
    knownFiles: new Map(),
    journal: overrides.journal ?? new LocalEffectJournal(scratchDir('journal')),
    signal: new AbortController().signal,
    sandbox: unconfined(),
    ...overrides,
  };
}
