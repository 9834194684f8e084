/** `durable-agent codec-server`: decrypts payloads for the Temporal UI and CLI (see ../codec-server.ts). */
import type { Command } from '../command';

export const codecServerCommand: Command = {
  name: 'codec-server',
  usage: `  durable-agent codec-server [--port 8081] [--host 127.0.0.1] [--namespace <ns>]… [--insecure-no-auth]
                                                          decrypts payloads for the Temporal UI and CLI (AGENT_ENCRYPTION_KEY)
                                                          for the token in AGENT_CODEC_AUTH (or, insecure, for anyone on loopback)`,
  async run(args, environment) {
    // Its arguments are checked there too (codecServerSettings): they name the settings it refuses without.
    return (await import('../codec-server')).serveCodec(args, environment);
  },
};
