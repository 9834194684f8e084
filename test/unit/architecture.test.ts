/**
 * docs/architecture.md lists src/ file for file: a file added, moved or removed
 * without the map following fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { PROJECT_ROOT } from '../support/paths';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(directory, entry.name))
      : entry.name.endsWith('.ts')
        ? [relative(join(PROJECT_ROOT, 'src'), join(directory, entry.name))]
        : [],
  );
}

/** Paths of the map, read by indentation: `  folder/`, then `    file.ts, other.ts   what they do`. */
function mappedFiles(document: string): string[] {
  const section = document.slice(document.indexOf('## The map'));
  const block = section.match(/```\n([\s\S]*?)```/)![1]!;
  const files: string[] = [];
  let folder = '';
  for (const line of block.split('\n')) {
    const indent = line.search(/\S/);
    const names = line.trim().split(/\s{2,}/)[0]!;
    if (indent === 2) folder = names.endsWith('/') ? names : '';
    let subfolder = '';
    for (const name of names.split(/,\s*/)) {
      if (!name.endsWith('.ts')) continue;
      if (name.includes('/')) subfolder = `${dirname(name)}/`;
      files.push(indent === 2 ? name : `${folder}${name.includes('/') ? name : subfolder + name}`);
    }
  }
  return files;
}

test('the architecture map (docs/architecture.md) names every file under src/, and only those', () => {
  const mapped = mappedFiles(readFileSync(join(PROJECT_ROOT, 'docs', 'architecture.md'), 'utf8'));
  expect(mapped.length).toBeGreaterThan(50);
  expect([...mapped].sort()).toEqual(sourceFiles(join(PROJECT_ROOT, 'src')).sort());
});
