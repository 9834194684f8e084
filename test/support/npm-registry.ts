/**
 * A stand-in npm registry for the tests: serves packages packed by `npm pack` (their packument
 * and tarball, as registry.npmjs.org does) on 127.0.0.1, and counts what it is asked, so a test
 * can tell whether a package was fetched again.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

interface Packed {
  name: string;
  version: string;
  bin: Record<string, string>;
  tarball: Buffer;
}

/** A package with one bin (`<name>`: `files[main]`), packed by npm into a tarball. */
export function packPackage(dir: string, name: string, files: Record<string, string>, main: string): Packed {
  const source = join(dir, `${name}-source`);
  mkdirSync(source, { recursive: true });
  const bin = { [name]: main };
  writeFileSync(join(source, 'package.json'), JSON.stringify({ name, version: '1.0.0', bin }));
  for (const [path, content] of Object.entries(files)) writeFileSync(join(source, path), content);
  chmodSync(join(source, main), 0o755);
  const file = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], {
    cwd: source,
    encoding: 'utf8',
  }).trim();
  return { name, version: '1.0.0', bin, tarball: readFileSync(join(dir, file)) };
}

export class NpmRegistry {
  /** Every request, as `GET /path`. */
  readonly requests: string[] = [];

  private constructor(
    private readonly server: Server,
    private readonly packages: Map<string, Packed>,
  ) {}

  static async start(packages: Packed[]): Promise<NpmRegistry> {
    const byName = new Map(packages.map((packed) => [packed.name, packed]));
    const server = createServer();
    const registry = new NpmRegistry(server, byName);
    server.on('request', (request, response) => registry.answer(request.method ?? 'GET', request.url ?? '/', response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return registry;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(method: string, url: string, response: ServerResponse): void {
    this.requests.push(`${method} ${url}`);
    const packed = this.packages.get(decodeURIComponent(url.slice(1)));
    const tarballOf = [...this.packages.values()].find((candidate) => url === this.tarballPath(candidate));
    if (packed) {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(this.packument(packed)));
    } else if (tarballOf) {
      response.setHeader('content-type', 'application/octet-stream');
      response.end(tarballOf.tarball);
    } else {
      response.statusCode = 404;
      response.end('{}');
    }
  }

  private tarballPath(packed: Packed): string {
    return `/${packed.name}/-/${packed.name}-${packed.version}.tgz`;
  }

  private packument(packed: Packed) {
    const integrity = `sha512-${createHash('sha512').update(packed.tarball).digest('base64')}`;
    const shasum = createHash('sha1').update(packed.tarball).digest('hex');
    const dist = { tarball: `http://127.0.0.1:${this.port}${this.tarballPath(packed)}`, integrity, shasum };
    const version = { name: packed.name, version: packed.version, bin: packed.bin, dist };
    return { name: packed.name, 'dist-tags': { latest: packed.version }, versions: { [packed.version]: version } };
  }
}
