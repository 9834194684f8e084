import { checkAgentInput } from '../../src/shared/input';
import { initialLoopState, type LoopState } from '../../src/workflows/core/loop-state';

/** A loop state as the workflow builds it, with overrides; `input` adds workflow input fields. */
export function loopState(overrides: Partial<LoopState> = {}, input: Record<string, unknown> = {}): LoopState {
  const check = checkAgentInput({ prompt: 'do it', workdir: '/repo', maxTurns: 3, ...input });
  if (!check.ok) throw new Error(check.message);
  return {
    ...initialLoopState(check.input, {
      workdir: '/real/repo',
      model: 'claude-sonnet-5-5',
      systemRef: 'sha256:system',
      prompt: { text: 'do it' },
      overheadTokens: 1000,
    }),
    ...overrides,
  };
}
