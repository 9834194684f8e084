/** `durable-agent store-prompt`: a prompt too long for history, stored; prints its promptRef. */
import type { Command } from '../command';
import { UsageError } from '../usage-error';

export const storePromptCommand: Command = {
  name: 'store-prompt',
  usage: `  durable-agent store-prompt <file | ->                   store a long prompt (for the Temporal CLI, schedules):
                                                          prints the promptRef to start a session with`,
  async run(args, environment) {
    const [source, ...extra] = args;
    if (!source || extra.length > 0) throw new UsageError('usage: durable-agent store-prompt <file | ->');
    return (await import('../big-prompt')).storePrompt(source, environment);
  },
};
