/**
 * `npm run build`, and `prepare` (so `npm ci` builds): compiles src/ to dist/ with tsc
 * (tsconfig.build.json), then records in dist/build-info.json when the sources were read, which
 * bin/entry.js compares with their times so that a stale build never runs. An interrupted or
 * failed build leaves no record: the sources run (through tsx) until a build succeeds.
 *
 * `--at-install` (prepare): an install without the sources (a Docker layer before they are
 * copied) or without TypeScript (`npm ci --omit=dev`) skips the build with a note; bin/ then runs
 * the sources through tsx. Everywhere else a failed build fails the command.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { BUILD_INFO } = require('../bin/entry');

const PROJECT_ROOT = join(__dirname, '..');
const TSCONFIG = join(PROJECT_ROOT, 'tsconfig.build.json');

/** Why this install cannot build (only asked at install), or undefined. */
function reasonToSkip() {
  if (!existsSync(join(PROJECT_ROOT, 'src')) || !existsSync(TSCONFIG)) return 'no sources here';
  try {
    require.resolve('typescript/bin/tsc');
  } catch {
    return 'TypeScript is not installed (a dev dependency)';
  }
  return undefined;
}

function build() {
  const skip = process.argv.includes('--at-install') ? reasonToSkip() : undefined;
  if (skip) {
    console.log(`durable-agent: ${skip}: not building dist/; bin/ runs the sources through tsx`);
    return 0;
  }
  // Taken before tsc reads anything: a source saved during the build makes the build stale.
  const sourcesReadAt = new Date().toISOString();
  rmSync(join(PROJECT_ROOT, BUILD_INFO), { force: true });
  const tscArguments = [require.resolve('typescript/bin/tsc'), '-p', TSCONFIG];
  const tsc = spawnSync(process.execPath, tscArguments, { stdio: 'inherit' });
  if (tsc.status !== 0) {
    const exit = tsc.status ?? tsc.signal;
    console.error(`durable-agent: the build failed (tsc exit ${exit}); bin/ runs the sources through tsx`);
    return 1;
  }
  mkdirSync(join(PROJECT_ROOT, 'dist'), { recursive: true });
  writeFileSync(join(PROJECT_ROOT, BUILD_INFO), `${JSON.stringify({ sourcesReadAt })}\n`);
  return 0;
}

process.exitCode = build();
