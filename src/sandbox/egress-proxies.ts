/**
 * A worker's egress proxies: one per policy, since a worker serves many sessions and each
 * carries its own allow-list, started the first time a command needs it and shared by every
 * session with the same list.
 *
 * Their sockets live in a directory of the worker's own (`durable-agent-egress-<pid>-<random>`,
 * mode 0711: others may reach a socket whose name they know, not list the directory). The
 * sockets are 0666 because a sandbox's user is not the worker's. That opens nothing: besides
 * the host's own processes, only the sandboxes a socket is bind-mounted into see its path (their
 * /tmp is their own), and what a proxy offers, the allowed domains, any host process can reach
 * directly anyway. What a sandbox lacks is the host's network, which no proxy hands out.
 *
 * A proxy is kept until close(): a long-lived command (a dev server) holds its sandbox's bridge
 * open and connects again at any time, so a proxy closed for idleness would cut it off.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatAllowedDomain, normalizeAllowedDomains, type AllowedDomain } from './allowed-domains';
import { EgressProxy, type EgressProxyOptions } from './egress-proxy';

export interface EgressProxiesOptions {
  /** Where the runtime directory is made: the system's temporary directory by default. */
  parent?: string;
  proxy?: EgressProxyOptions;
}

export class EgressProxies {
  private directory: Promise<string> | undefined;
  private readonly proxies = new Map<string, Promise<EgressProxy>>();
  private started = 0;
  private closed = false;

  constructor(private readonly options: EgressProxiesOptions = {}) {}

  /**
   * The socket of the proxy for `allowed`, in any order and with duplicates: started once,
   * however many callers ask at the same time (they share its start, and its failure).
   */
  async socketFor(allowed: readonly AllowedDomain[]): Promise<string> {
    if (this.closed) throw new Error('the egress proxies are closed');
    const policy = normalizeAllowedDomains(allowed);
    const key = policy.map(formatAllowedDomain).join(',');
    let proxy = this.proxies.get(key);
    if (proxy === undefined) {
      proxy = this.start(policy);
      this.proxies.set(key, proxy);
      // A failed start is not remembered: the next command tries again.
      const started = proxy;
      started.catch(() => this.proxies.get(key) === started && this.proxies.delete(key));
    }
    return (await proxy).socketPath;
  }

  /** Closes every proxy, started or starting, and removes the directory. */
  async close(): Promise<void> {
    this.closed = true;
    const proxies = await Promise.allSettled(this.proxies.values());
    this.proxies.clear();
    await Promise.all(proxies.map((proxy) => (proxy.status === 'fulfilled' ? proxy.value.close() : undefined)));
    const directory = await this.directory?.catch(() => undefined);
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  }

  private async start(policy: AllowedDomain[]): Promise<EgressProxy> {
    // Named by a counter, not by the policy: short (a socket path has at most 107 bytes), and
    // the path tells nothing of the list.
    const socketPath = join(await this.runtimeDirectory(), `${++this.started}.sock`);
    return EgressProxy.listen(socketPath, policy, this.options.proxy);
  }

  /** Made once, when the first proxy starts; a failure is not remembered either. */
  private runtimeDirectory(): Promise<string> {
    if (this.directory === undefined) {
      const making = makeRuntimeDirectory(this.options.parent ?? tmpdir());
      this.directory = making;
      making.catch(() => this.directory === making && (this.directory = undefined));
    }
    return this.directory;
  }
}

async function makeRuntimeDirectory(parent: string): Promise<string> {
  const directory = await mkdtemp(join(parent, `durable-agent-egress-${process.pid}-`));
  await chmod(directory, 0o711);
  return directory;
}
