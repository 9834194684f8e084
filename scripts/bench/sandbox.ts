/**
 * What the sandbox costs each Bash call: 50 `true` commands through the Bash tool, with
 * bubblewrap and unconfined, interleaved in one run so both see the same machine.
 */
import { unconfined } from '../../src/sandbox/command-sandbox';
import { resolveSandbox } from '../../src/sandbox/resolve-sandbox';
import { sandboxSettings } from '../../src/worker-config';
import { bashTool } from '../../src/activities/tools/bash';
import type { ToolContext } from '../../src/activities/tools/tool';
import { makeRepo } from '../../test/support/harness';
import { toolContext } from '../../test/support/tool-context';
import { median, round, type Row } from './support';

const CALLS = 50;

export async function sandbox(): Promise<Row[]> {
  const workdir = makeRepo({ 'README.md': 'x\n' });
  const context = (commandSandbox: ToolContext['sandbox']) => toolContext(workdir, { sandbox: commandSandbox });
  const sandboxed = context(await resolveSandbox({ ...sandboxSettings({}), mode: 'bwrap' }));
  const plain = context(unconfined());
  const timings = { sandboxed: [] as number[], plain: [] as number[] };
  const time = async (into: number[], toolContext: ToolContext) => {
    const started = performance.now();
    const output = await bashTool.execute({ command: 'true' }, toolContext);
    into.push(performance.now() - started);
    if (output.isError) throw new Error(`true failed: ${output.text}`);
  };
  for (let call = 0; call < CALLS; call++) {
    await time(timings.sandboxed, sandboxed);
    await time(timings.plain, plain);
  }
  const overhead = median(timings.sandboxed) - median(timings.plain);
  return [
    {
      figure: `Sandbox overhead per Bash call (median of ${CALLS} \`true\` calls through the Bash tool, interleaved)`,
      value: `${round(overhead)} ms (bubblewrap ${round(median(timings.sandboxed))} ms vs unconfined ${round(median(timings.plain))} ms; target ≤ 30 ms)`,
      command: 'npm run bench -- --only sandbox',
    },
  ];
}
