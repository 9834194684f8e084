/**
 * bin/compile-cache.js: a module loaded through the cache behaves as Node would load it, its
 * bytecode comes from the cache on the next start, and a changed file never runs old bytecode.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT, scratchDir } from '../support/paths';

const COMPILE_CACHE = join(PROJECT_ROOT, 'bin', 'compile-cache.js');

interface Loaded {
  exports: { answer: number; dirname: string; filename: string; resolved: string; main: boolean };
  stats: { fromCache: number; waitingToBeSaved: number };
}

/** A fresh node that loads `module` with the cache in `cacheDir` (written at its exit), and what it saw. */
function load(module: string, cacheDir: string, environment: NodeJS.ProcessEnv = {}): Loaded {
  const script = `
    const cache = require(${JSON.stringify(COMPILE_CACHE)});
    cache.enableCompileCache('test', process.env, ${JSON.stringify(cacheDir)});
    const loaded = require(${JSON.stringify(module)});
    console.log(JSON.stringify({ exports: loaded, stats: cache.compileCacheStats() }));`;
  const output = execFileSync(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH, ...environment },
    encoding: 'utf8',
  });
  return JSON.parse(output) as Loaded;
}

/** A module of two files, the first with a hashbang, whose answer is `answer`. */
function writeModule(directory: string, answer: number): string {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'helper.js'), `exports.answer = ${answer};\n`);
  const main = join(directory, 'main.js');
  writeFileSync(
    main,
    `#!/usr/bin/env node\nconst { answer } = require('./helper');\n` +
      `module.exports = { answer, dirname: __dirname, filename: __filename, resolved: require.resolve('./helper'), main: require.main === module };\n`,
  );
  return main;
}

test('a module loads as without the cache, then from it', () => {
  const root = scratchDir('compile-cache');
  const main = writeModule(join(root, 'module'), 42);
  const first = load(main, join(root, 'cache'));
  expect(first.exports).toEqual({
    answer: 42,
    dirname: join(root, 'module'),
    filename: main,
    resolved: join(root, 'module', 'helper.js'),
    main: false,
  });
  expect(first.stats).toEqual({ fromCache: 0, waitingToBeSaved: 2 });
  const second = load(main, join(root, 'cache'));
  expect(second.exports).toEqual(first.exports);
  expect(second.stats).toEqual({ fromCache: 2, waitingToBeSaved: 0 });
});

test('a module that imports ESM at run time is left to Node, and its import() works', () => {
  const root = scratchDir('compile-cache');
  const module = join(root, 'dynamic.js');
  writeFileSync(module, `module.exports = { later: () => import('node:os') };\n`);
  const script = `
    const cache = require(${JSON.stringify(COMPILE_CACHE)});
    cache.enableCompileCache('test', process.env, ${JSON.stringify(join(root, 'cache'))});
    require(${JSON.stringify(module)}).later().then((os) => console.log(JSON.stringify({ os: typeof os.cpus, stats: cache.compileCacheStats() })));`;
  for (let run = 0; run < 2; run++) {
    const output = execFileSync(process.execPath, ['-e', script], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(JSON.parse(output)).toEqual({ os: 'function', stats: { fromCache: 0, waitingToBeSaved: 0 } });
  }
});

test('a file changed since the cache was written runs its new content', () => {
  const root = scratchDir('compile-cache');
  const main = writeModule(join(root, 'module'), 42);
  load(main, join(root, 'cache'));
  // The same length as before: only the content tells the two apart.
  writeModule(join(root, 'module'), 43);
  const changed = load(main, join(root, 'cache'));
  expect(changed.exports.answer).toBe(43);
  expect(changed.stats).toEqual({ fromCache: 1, waitingToBeSaved: 1 });
});

test('a damaged cache is compiled around, and DURABLE_AGENT_COMPILE_CACHE=0 turns the cache off', () => {
  const root = scratchDir('compile-cache');
  const main = writeModule(join(root, 'module'), 42);
  mkdirSync(join(root, 'cache'));
  writeFileSync(
    join(root, 'cache', `test-${process.version}-${process.arch}-${process.getuid?.() ?? 'user'}.bin`),
    'not a cache',
  );
  expect(load(main, join(root, 'cache')).stats).toEqual({ fromCache: 0, waitingToBeSaved: 2 });
  expect(load(main, join(root, 'cache')).stats.fromCache).toBe(2);
  expect(load(main, join(root, 'cache'), { DURABLE_AGENT_COMPILE_CACHE: '0' })).toEqual({
    exports: expect.objectContaining({ answer: 42 }),
    stats: { fromCache: 0, waitingToBeSaved: 0 },
  });
});
