import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../shared/errors';
import { INLINE_TEXT_LIMIT } from '../shared/limits';
import type { TextOrRef } from '../shared/conversation';
import type { BlobCipher } from '../encryption/stored-blob';

/**
 * Content-addressed store for conversation content. The workflow holds only references
 * (`sha256:<hex>`), so history per turn stays small whatever the size of the context.
 *
 * Content-addressed means immutable: writing the same bytes twice is harmless, which is what
 * makes every activity that writes here safe to retry after a crash. A shared implementation
 * (object storage, a database) only has to honour these few methods.
 *
 * Text and bytes share one address space: `put(text)` and `putBytes` of the text's UTF-8 bytes
 * give the same reference, so a workspace snapshot's file and a conversation's text are stored once.
 */
export interface ContentStore {
  put(data: string): Promise<string>;
  get(ref: string): Promise<string>;
  putBytes(data: Buffer): Promise<string>;
  getBytes(ref: string): Promise<Buffer>;
  has(ref: string): Promise<boolean>;
}

const REF_PREFIX = 'sha256:';

export function contentRef(data: string | Buffer): string {
  return REF_PREFIX + createHash('sha256').update(data).digest('hex');
}

/** Recently written or read objects, text only: immutable, so a bounded cache of them is always correct. */
export class RecentObjects {
  private readonly entries = new Map<string, string>();

  constructor(private readonly capacity = 2000) {}

  get(ref: string): string | undefined {
    return this.entries.get(ref);
  }

  has(ref: string): boolean {
    return this.entries.has(ref);
  }

  remember(ref: string, data: string): void {
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(ref, data);
  }
}

/** The default store: one file per object under a directory on the worker host. */
export class LocalContentStore implements ContentStore {
  private readonly cache = new RecentObjects();
  /** Fan-out directories known to exist: saves a mkdir per object when writing many. */
  private readonly directories = new Set<string>();

  constructor(
    readonly directory: string,
    /** Encrypts objects at rest when the deployment has a key (AGENT_ENCRYPTION_KEY). */
    private readonly cipher?: BlobCipher,
  ) {}

  private pathOf(ref: string): string {
    if (!ref.startsWith(REF_PREFIX) || !/^[0-9a-f]{64}$/.test(ref.slice(REF_PREFIX.length))) {
      throw new Error(`Not a content reference: ${ref}`);
    }
    const hex = ref.slice(REF_PREFIX.length);
    return join(this.directory, hex.slice(0, 2), hex.slice(2));
  }

  async put(data: string): Promise<string> {
    const ref = await this.putBytes(Buffer.from(data, 'utf8'));
    this.cache.remember(ref, data);
    return ref;
  }

  async putBytes(data: Buffer): Promise<string> {
    const ref = contentRef(data);
    // Only what was written or read is cached, so a cached reference is known to be on disk.
    if (this.cache.has(ref)) return ref;
    const path = this.pathOf(ref);
    if (!(await exists(path))) {
      const directory = join(path, '..');
      if (!this.directories.has(directory)) {
        await mkdir(directory, { recursive: true });
        this.directories.add(directory);
      }
      // Write-then-rename: a crash mid-write never leaves a truncated object under the final name.
      const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temporary, this.cipher ? this.cipher.seal(data) : data);
      await rename(temporary, path);
    }
    return ref;
  }

  async get(ref: string): Promise<string> {
    const cached = this.cache.get(ref);
    if (cached !== undefined) return cached;
    const data = (await this.getBytes(ref)).toString('utf8');
    this.cache.remember(ref, data);
    return data;
  }

  /**
   * Always read from disk: the cache holds text, and decoding arbitrary bytes as UTF-8 is lossy,
   * so a binary object that was once read with `get` must not come back from the cache.
   */
  async getBytes(ref: string): Promise<Buffer> {
    try {
      const stored = await readFile(this.pathOf(ref));
      return this.cipher ? this.cipher.open(stored) : stored;
    } catch (error) {
      // Without the content the conversation (or a snapshot) cannot be rebuilt; retrying will not bring it back.
      throw ApplicationFailure.nonRetryable(
        `Content ${ref} is missing from the content store at ${this.directory} (${(error as Error).message}). ` +
          'Every worker of a task queue must share the same AGENT_CONTENT_DIR.',
        ErrorType.ContentMissing,
      );
    }
  }

  async has(ref: string): Promise<boolean> {
    return this.cache.has(ref) || exists(this.pathOf(ref));
  }
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
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
