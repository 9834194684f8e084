import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors';
import { INLINE_TEXT_LIMIT } from '../../shared/limits';
import type { TextOrRef } from '../../shared/conversation';

/**
 * Content-addressed store for conversation content. The workflow holds only references
 * (`sha256:<hex>`), so history per turn stays small whatever the size of the context.
 *
 * Content-addressed means immutable: writing the same bytes twice is harmless, which is what
 * makes every activity that writes here safe to retry after a crash. A shared implementation
 * (object storage, a database) only has to honour `put`/`get`.
 */
export interface ContentStore {
  put(data: string): Promise<string>;
  get(ref: string): Promise<string>;
}

const REF_PREFIX = 'sha256:';

export function contentRef(data: string): string {
  return REF_PREFIX + createHash('sha256').update(data, 'utf8').digest('hex');
}

/** The default store: one file per object under a directory on the worker host. */
export class LocalContentStore implements ContentStore {
  /** Objects are immutable, so a bounded cache of recent ones is always correct. */
  private readonly cache = new Map<string, string>();
  private static readonly CACHE_ENTRIES = 2000;

  constructor(readonly directory: string) {}

  private pathOf(ref: string): string {
    if (!ref.startsWith(REF_PREFIX) || !/^[0-9a-f]{64}$/.test(ref.slice(REF_PREFIX.length))) {
      throw new Error(`Not a content reference: ${ref}`);
    }
    const hex = ref.slice(REF_PREFIX.length);
    return join(this.directory, hex.slice(0, 2), hex.slice(2));
  }

  async put(data: string): Promise<string> {
    const ref = contentRef(data);
    const path = this.pathOf(ref);
    const exists = await access(path).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await mkdir(join(path, '..'), { recursive: true });
      // Write-then-rename: a crash mid-write never leaves a truncated object under the final name.
      const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temporary, data, 'utf8');
      await rename(temporary, path);
    }
    this.remember(ref, data);
    return ref;
  }

  async get(ref: string): Promise<string> {
    const cached = this.cache.get(ref);
    if (cached !== undefined) return cached;
    let data: string;
    try {
      data = await readFile(this.pathOf(ref), 'utf8');
    } catch (error) {
      // Without the content the conversation cannot be rebuilt; retrying will not bring it back.
      throw ApplicationFailure.nonRetryable(
        `Content ${ref} is missing from the content store at ${this.directory} (${(error as Error).message}). ` +
          'Every worker of a task queue must share the same AGENT_CONTENT_DIR.',
        ErrorType.ContentMissing,
      );
    }
    this.remember(ref, data);
    return data;
  }

  private remember(ref: string, data: string): void {
    if (this.cache.size >= LocalContentStore.CACHE_ENTRIES) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(ref, data);
  }
}

/** Short text stays inline (readable in the Temporal UI); long text goes to the store. */
export async function storeText(store: ContentStore, text: string): Promise<TextOrRef> {
  if (text.length <= INLINE_TEXT_LIMIT) return { text };
  const ref = await store.put(text);
  return { ref, chars: text.length, preview: previewOf(text) };
}

export async function loadText(store: ContentStore, value: TextOrRef): Promise<string> {
  return 'text' in value ? value.text : store.get(value.ref);
}

export function previewOf(text: string, limit = 300): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} chars)`;
}

export async function putJson(store: ContentStore, value: unknown): Promise<string> {
  return store.put(JSON.stringify(value));
}

export async function getJson<T>(store: ContentStore, ref: string): Promise<T> {
  return JSON.parse(await store.get(ref)) as T;
}
