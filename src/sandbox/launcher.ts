/**
 * The shell that starts a command: in the sandbox, the bridge to the egress proxy (for a
 * filtered network) and the command's limits, then the command itself; unconfined, a watchdog
 * beside it. Plain bash builtins where it waits, so starting costs a process or two, no more.
 */

/** Where the egress proxy's socket is bound inside a sandbox, and the port its bridge listens on. */
export const EGRESS_SOCKET = '/run/durable-agent/egress.sock';
export const PROXY_PORT = 3128;

/** The proxy as commands name it: the usual variables, both spellings (curl reads only lower-case http_proxy). */
export function proxyEnvironment(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  const local = 'localhost,127.0.0.1,::1';
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: local, no_proxy: local };
}

/**
 * Inside the sandbox: `bash -c <this> durable-agent <command>`. socat bridges 127.0.0.1:3128 to
 * the proxy's socket (the sandbox's own network namespace has nothing else); the shell waits for
 * it to accept (bash's /dev/tcp, no process started), so a command that connects at once finds it.
 * The limits are hard limits: the command cannot raise them again.
 */
export function sandboxLauncher({ bridge, limits }: { bridge: boolean; limits: string }): string {
  const lines = ['set -u'];
  if (bridge) {
    lines.push(
      `socat TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${EGRESS_SOCKET} </dev/null >/dev/null 2>&1 &`,
      // Ready when it accepts a connection (an empty one: the proxy sees it open and close). Quick
      // tries first: socat listens within a few milliseconds; then short sleeps, for 10 s at most.
      // (/proc/net/tcp would say so without a connection, but reading it costs milliseconds.)
      'for ((tries = 0; tries < 2100; tries++)); do',
      `  if { exec 3<>/dev/tcp/127.0.0.1/${PROXY_PORT}; } 2>/dev/null; then exec 3>&-; break; fi`,
      '  ((tries < 100)) || sleep 0.005',
      'done',
    );
  }
  if (limits) lines.push(limits);
  lines.push('exec bash -c "$1"');
  return lines.join('\n');
}

/**
 * Unconfined: a watchdog beside the command kills its process group when the worker process
 * disappears, so a killed worker's command does not run on beside its retry. `bash -c <this>
 * durable-agent-command <worker pid> <command>`.
 */
export function unconfinedLauncher({ limits }: { limits: string }): string {
  return [
    'worker_pid="$1"; user_command="$2"',
    '( while kill -0 "$worker_pid" 2>/dev/null; do sleep 1; done; kill -KILL 0 ) </dev/null >/dev/null 2>&1 &',
    'watchdog=$!',
    ...(limits ? [`( ${limits}; exec bash -c "$user_command" )`] : ['bash -c "$user_command"']),
    'status=$?',
    'kill "$watchdog" 2>/dev/null',
    'exit $status',
  ].join('\n');
}
