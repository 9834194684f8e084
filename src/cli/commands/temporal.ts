/** `durable-agent temporal <args>…`: the Temporal CLI, its arguments and exit code passed through. */
import type { Command } from '../command';

export const temporalCommand: Command = {
  name: 'temporal',
  usage: `  durable-agent temporal <args>…                          the Temporal CLI (installed here when not on PATH), e.g.
                                                          durable-agent temporal workflow show --workflow-id <id>`,
  async run(args, environment) {
    return (await import('../temporal-passthrough')).runTemporalCli(args, environment);
  },
};
