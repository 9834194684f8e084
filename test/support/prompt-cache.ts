/**
 * Anthropic's prompt caching, simulated for the fake API: a request writes to the cache the
 * prefix that ends at each of its `cache_control` breakpoints; a later request reads the longest
 * cached prefix that ends at a breakpoint of its own or at one of the 20 blocks before one. The
 * prefix runs tools, then system, then the messages' blocks, and is compared without the
 * cache_control marks (they are not part of the content).
 */
import { createHash } from 'node:crypto';

interface Body {
  system?: unknown;
  tools?: unknown[];
  messages: { role: string; content: string | unknown[] }[];
}

const LOOKBACK_BLOCKS = 20;

export interface CacheUsage {
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

export class PromptCache {
  private readonly cached = new Set<string>();

  /** The request's input tokens, split as the API reports them; writes what it marks. */
  use(body: Body): CacheUsage {
    const blocks: { value: unknown; breakpoint: boolean; role: string }[] = [];
    for (const tool of body.tools ?? []) blocks.push({ value: tool, breakpoint: hasMark(tool), role: 'tools' });
    for (const block of Array.isArray(body.system) ? body.system : body.system ? [body.system] : [])
      blocks.push({ value: block, breakpoint: hasMark(block), role: 'system' });
    for (const message of body.messages) {
      for (const block of typeof message.content === 'string' ? [message.content] : message.content)
        blocks.push({ value: block, breakpoint: hasMark(block), role: message.role });
    }
    const hashes: string[] = [];
    const tokens: number[] = [];
    let hash = createHash('sha256');
    let total = 0;
    for (const block of blocks) {
      const text = `${block.role}:${JSON.stringify(withoutMarks(block.value))}`;
      hash = hash.copy().update(text);
      hashes.push(hash.copy().digest('hex'));
      total += text.length / 4;
      tokens.push(Math.ceil(total));
    }
    const breakpoints = blocks.flatMap((block, index) => (block.breakpoint ? [index] : []));
    let read = 0;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= Math.max(0, breakpoint - LOOKBACK_BLOCKS); index--) {
        if (this.cached.has(hashes[index]!)) {
          read = Math.max(read, tokens[index]!);
          break;
        }
      }
    }
    const last = breakpoints[breakpoints.length - 1];
    const written = last === undefined ? 0 : Math.max(0, tokens[last]! - read);
    for (const breakpoint of breakpoints) this.cached.add(hashes[breakpoint]!);
    const all = Math.ceil(total);
    return {
      inputTokens: Math.max(0, all - read - written),
      cacheReadInputTokens: read,
      cacheCreationInputTokens: written,
    };
  }
}

function hasMark(block: unknown): boolean {
  return typeof block === 'object' && block !== null && 'cache_control' in block;
}

function withoutMarks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMarks);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'cache_control')
      .map(([key, entry]) => [key, withoutMarks(entry)]),
  );
}
