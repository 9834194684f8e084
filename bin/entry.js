/**
 * Which code `durable-agent` and `npm run worker` run. The build in dist/ (`npm run build`;
 * `npm ci` makes it through the `prepare` script) starts in a fraction of the time tsx takes to
 * compile the sources at every start, so it runs whenever no source changed after it was built.
 * Otherwise (a checkout never built, or sources edited since) the sources run through tsx after a
 * one-line note on stderr: a stale build never runs, and editing a file needs no rebuild.
 */
'use strict';
const { existsSync, readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');

const PROJECT_ROOT = join(__dirname, '..');
/** Written by scripts/build.js once tsc succeeded: when the build read the sources. */
const BUILD_INFO = join('dist', 'build-info.json');

/** The most recently modified file under `directory`, or undefined when it holds none. */
function newestFile(directory) {
  let newest;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    const candidate = entry.isDirectory() ? newestFile(path) : { path, mtimeMs: statSync(path).mtimeMs };
    if (candidate && (!newest || candidate.mtimeMs > newest.mtimeMs)) newest = candidate;
  }
  return newest;
}

/** `{ fresh: true }` when dist/ is a build of src/ as it is now; else `{ fresh: false, reason }`. */
function buildState(root = PROJECT_ROOT) {
  // An installation that ships only the build has nothing to compare it with.
  if (!existsSync(join(root, 'src'))) return { fresh: true };
  let sourcesReadAt;
  try {
    sourcesReadAt = Date.parse(JSON.parse(readFileSync(join(root, BUILD_INFO), 'utf8')).sourcesReadAt);
  } catch {
    return { fresh: false, reason: 'no build in dist/' };
  }
  const newest = newestFile(join(root, 'src'));
  if (newest && !(newest.mtimeMs <= sourcesReadAt)) {
    return { fresh: false, reason: `${relative(root, newest.path)} changed after the build in dist/` };
  }
  return { fresh: true };
}

/**
 * Resolves with the module `name` (e.g. `cli/main`): compiled from dist/ when fresh, else its
 * source through tsx.
 */
async function loadEntry(name) {
  const state = buildState();
  if (state.fresh) {
    // The build's bytecode from the last start (see compile-cache.js): tsx's output is never cached.
    require('./compile-cache').enableCompileCache(name.replace(/\W/g, '-'));
    return require(join(PROJECT_ROOT, 'dist', `${name}.js`));
  }
  const note = `${state.reason} (npm run build): running the sources through tsx, slower to start`;
  process.stderr.write(`durable-agent: ${note}\n`);
  // Both of tsx's loaders, as `node --import tsx` registers them: commands load their modules
  // with import(), which tsx's CommonJS loader alone leaves to Node's (which knows no .ts).
  (await import('tsx/esm/api')).register();
  require('tsx/cjs');
  return require(join(PROJECT_ROOT, 'src', `${name}.ts`));
}

module.exports = { BUILD_INFO, buildState, loadEntry };
