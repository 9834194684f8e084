/**
 * A git branch name from any workflow id. Schedules append a timestamp with colons to the ids of
 * the workflows they start (`lint-2026-12-01T13:16:03Z`), and people use any characters: the
 * branch of a `repo` session must still be one git accepts (`git check-ref-format`).
 *
 * An id git accepts, of at most `MAX_BRANCH_ID_BYTES`, names its branch unchanged, as it always
 * did. Any other id has what git refuses replaced by `-`, is cut to fit, and ends with a short
 * hash of the whole id, so that two distinct ids never share a branch (`a:b` and `a-b` included).
 *
 * Pure and deterministic: workflow code derives the branch (prepare.ts).
 */

/** Longest id (in UTF-8 bytes) kept as it is: a path component of git's ref store must fit 255 bytes. */
export const MAX_BRANCH_ID_BYTES = 100;

const PREFIX = 'durable-agent/';
const HASH_CHARS = 10;

/** Characters no ref may hold besides control characters, space and DEL. */
const REFUSED_PUNCTUATION = new Set(['~', '^', ':', '?', '*', '[', '\\']);

function isRefusedChar(char: string): boolean {
  const code = char.codePointAt(0)!;
  return code <= 0x20 || code === 0x7f || REFUSED_PUNCTUATION.has(char);
}

/** The branch a `repo` session's changes are committed to. */
export function branchForSession(sessionId: string): string {
  if (isSafeBranchId(sessionId)) return PREFIX + sessionId;
  const cleaned = cleanComponents(sessionId);
  const kept = cutToBytes(cleaned, MAX_BRANCH_ID_BYTES - HASH_CHARS - 1).replace(/[./]+$/, '');
  return `${PREFIX}${kept ? `${kept}-` : ''}${shortHash(sessionId)}`;
}

/** Whether `durable-agent/<id>` is a ref name git accepts, and short enough to keep as it is. */
export function isSafeBranchId(id: string): boolean {
  if (id.length === 0 || utf8Bytes(id) > MAX_BRANCH_ID_BYTES) return false;
  if (Array.from(id).some(isRefusedChar) || id.includes('..') || id.includes('@{') || id.includes('//')) return false;
  if (id.startsWith('/') || id.endsWith('/') || id.endsWith('.')) return false;
  return id.split('/').every((component) => !component.startsWith('.') && !component.endsWith('.lock'));
}

/** Replaces what git refuses, component by component. */
function cleanComponents(id: string): string {
  const replaced = Array.from(id, (char) => (isRefusedChar(char) ? '-' : char))
    .join('')
    .replace(/\.{2,}/g, '-')
    .replace(/@\{/g, '-{');
  return replaced
    .split('/')
    .filter((component) => component.length > 0)
    .map((component) =>
      component
        .replace(/^\./, '-')
        .replace(/\.lock$/, '-lock')
        .replace(/\.$/, '-'),
    )
    .join('/');
}

/** The longest prefix of `text` (whole code points) of at most `budget` UTF-8 bytes. */
function cutToBytes(text: string, budget: number): string {
  let bytes = 0;
  let kept = '';
  for (const char of text) {
    bytes += utf8Bytes(char);
    if (bytes > budget) break;
    kept += char;
  }
  return kept;
}

function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** A 53-bit hash of the whole id (cyrb53), as hex: no crypto in workflow code, and collisions are what matters here. */
function shortHash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return value.toString(16).padStart(14, '0').slice(-HASH_CHARS);
}
