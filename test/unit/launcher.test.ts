/**
 * bin/entry.js runs the build in dist/ only while it is a build of the sources as they are: a
 * checkout never built, or edited since, runs its sources instead (a stale build never runs).
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_INFO, buildState } from '../../bin/entry';
import { scratchDir } from '../support/paths';

const BUILT_AT = new Date('2026-12-01T12:00:00Z');

/** A project whose one source file was last written at `sourceWrittenAt`, built at BUILT_AT when `built`. */
function project(sourceWrittenAt: Date, built: boolean): string {
  const root = scratchDir('launcher');
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  const source = join(root, 'src', 'cli', 'main.ts');
  writeFileSync(source, 'export {};\n');
  utimesSync(source, sourceWrittenAt, sourceWrittenAt);
  if (built) {
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, BUILD_INFO), JSON.stringify({ sourcesReadAt: BUILT_AT.toISOString() }));
  }
  return root;
}

test('a build made after the last change of every source is fresh', () => {
  expect(buildState(project(new Date(BUILT_AT.getTime() - 60_000), true))).toEqual({ fresh: true });
});

test('a source changed after the build makes it stale, naming the file', () => {
  const edited = project(new Date(BUILT_AT.getTime() + 1_000), true);
  expect(buildState(edited)).toEqual({ fresh: false, reason: 'src/cli/main.ts changed after the build in dist/' });
});

test('a checkout never built (or whose build failed) has no build to run', () => {
  expect(buildState(project(BUILT_AT, false))).toEqual({ fresh: false, reason: 'no build in dist/' });
});

test('an installation without sources runs what it has', () => {
  expect(buildState(scratchDir('launcher-no-sources'))).toEqual({ fresh: true });
});
