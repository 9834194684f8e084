/**
 * Who the codec server decrypts for. It holds every key of the deployment, so whoever reaches it
 * can read every session's payloads (history is readable through Temporal's own APIs, sandboxed
 * commands included): it wants a bearer token, or a browser signed in with that token, and
 * serves only the namespaces it is told to.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { BlockList } from 'node:net';
import { UsageError } from './cli-client';

/** Long enough that guessing it over HTTP is hopeless; what `openssl rand -hex 32` makes is 64. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * A token as given (AGENT_CODEC_AUTH, or the local server's token file): undefined when empty.
 * "Bearer <token>" is still read as <token>, as the variable has always been.
 */
export function parseCodecToken(text: string | undefined, source = 'AGENT_CODEC_AUTH'): string | undefined {
  let token = text?.trim();
  if (token?.startsWith('Bearer ')) token = token.slice('Bearer '.length).trim();
  if (!token) return undefined;
  // It travels in an HTTP header and a cookie: printable ASCII, no spaces, nothing to quote.
  if (!/^[\x21-\x7e]+$/.test(token) || /[",;\\]/.test(token)) {
    throw new UsageError(
      `${source} must be printable ASCII without spaces, quotes, commas, semicolons or backslashes, e.g. $(openssl rand -hex 32)`,
      false,
    );
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(
      `${source} is ${token.length} characters: a token needs at least ${MIN_TOKEN_LENGTH}, e.g. $(openssl rand -hex 32)`,
      false,
    );
  }
  return token;
}

/** Fixed-length digests, so the comparison takes the same time whatever the length of what was sent. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** `Authorization: Bearer <token>` (the scheme in any case, as HTTP allows). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^bearer +(\S+)$/i.exec(header?.trim() ?? '');
  return sameSecret(match?.[1] ?? '', token);
}

/**
 * The Web UI cannot send a fixed bearer token (it sends only an OIDC user's access token), but it
 * can send cookies ("include credentials"). A browser that signs in at /login gets this cookie: an
 * HMAC of the token rather than the token, so the cookie never doubles as the CLI's secret. Its
 * name carries the port because cookies are per host, not per port.
 */
export interface SignInCookie {
  name: string;
  value: string;
}

export function signInCookie(token: string, port: number): SignInCookie {
  return {
    name: `durable-agent-codec-${port}`,
    value: createHmac('sha256', token).update('durable-agent codec sign-in').digest('base64url'),
  };
}

export function cookieMatches(header: string | undefined, cookie: SignInCookie): boolean {
  const given = (header ?? '')
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${cookie.name}=`));
  return given !== undefined && sameSecret(given.slice(cookie.name.length + 1), cookie.value);
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether only this machine can reach `host` (`localhost`, 127.0.0.0/8, ::1, also written [::1] or ::ffff:127.x.y.z). */
export function isLoopback(host: string): boolean {
  const bare = host
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase();
  if (bare === 'localhost') return true;
  try {
    return LOOPBACK.check(bare, bare.includes(':') ? 'ipv6' : 'ipv4');
  } catch {
    return false; // not an address at all
  }
}

const NAMESPACE = /^[A-Za-z0-9._-]{1,255}$/;

/**
 * The namespaces served: `--namespace` (repeatable, or comma-separated), else AGENT_CODEC_NAMESPACES,
 * else the deployment's TEMPORAL_NAMESPACE, else `default`.
 */
export function servedNamespaces(flag: string[] | undefined, environment: NodeJS.ProcessEnv): Set<string> {
  const [source, text] = flag?.length
    ? ['--namespace', flag.join(',')]
    : environment.AGENT_CODEC_NAMESPACES?.trim()
      ? ['AGENT_CODEC_NAMESPACES', environment.AGENT_CODEC_NAMESPACES]
      : ['TEMPORAL_NAMESPACE', environment.TEMPORAL_NAMESPACE?.trim() || 'default'];
  const names = text.split(',').map((name) => name.trim());
  const bad = names.find((name) => !NAMESPACE.test(name));
  if (bad !== undefined)
    throw new UsageError(
      `${source}: ${JSON.stringify(bad)} is not a namespace name (letters, digits, . _ -; several separated by commas)`,
      false,
    );
  return new Set(names);
}

/**
 * Why a request's X-Namespace is refused, or undefined when it may go on. Temporal's CLI
 * (`--codec-endpoint`) and Web UI send X-Namespace on every request, so one naming a namespace not
 * served here is a client pointed at the wrong codec server, or someone trying their luck: 403.
 * A request without the header comes from another client (an SDK's remote codec, curl); it has
 * already shown the token by then, and with one set of keys for every namespace served the header
 * could not narrow what it may decrypt, so requiring it would only break such clients.
 */
export function namespaceRefusal(
  header: string | string[] | undefined,
  served: ReadonlySet<string>,
): string | undefined {
  if (header === undefined) return undefined;
  const namespace = Array.isArray(header) ? header.join(', ') : header;
  if (served.has(namespace)) return undefined;
  return `namespace ${JSON.stringify(namespace.slice(0, 100))} is not served here (serving: ${[...served].join(', ')}): set --namespace or AGENT_CODEC_NAMESPACES`;
}
