/** Grep's `type` filter: ripgrep's common types, matched by extension in any case. */
import { FILE_TYPES, fileOfType } from '../../../../src/activities/tools/file-types';

describe('file types', () => {
  test('a file is of a type by its extension, in any case', () => {
    expect(fileOfType(FILE_TYPES.ts!, 'src/App.TSX')).toBe(true);
    expect(fileOfType(FILE_TYPES.ts!, 'src/main.mts')).toBe(true);
    expect(fileOfType(FILE_TYPES.ts!, 'src/main.js')).toBe(false);
    expect(fileOfType(FILE_TYPES.py!, 'tools/types.pyi')).toBe(true);
  });

  test('only the extension counts: a name that merely ends in the letters does not', () => {
    expect(fileOfType(FILE_TYPES.ts!, 'src/hits')).toBe(false);
    expect(fileOfType(FILE_TYPES.ts!, 'notes.ts.bak')).toBe(false);
    expect(fileOfType(FILE_TYPES.go!, 'cargo')).toBe(false);
  });

  test('every extension starts with a dot (else "ts" would match "hits")', () => {
    const extensions = Object.values(FILE_TYPES).flat();
    expect(extensions.filter((extension) => !/^\.[a-z0-9+]+$/.test(extension))).toEqual([]);
  });

  test('a header is both C and C++; aliases name the same extensions', () => {
    expect(fileOfType(FILE_TYPES.c!, 'lib/util.h')).toBe(true);
    expect(fileOfType(FILE_TYPES.cpp!, 'lib/util.h')).toBe(true);
    expect(FILE_TYPES.md).toEqual(FILE_TYPES.markdown);
    expect(FILE_TYPES.rb).toEqual(FILE_TYPES.ruby);
  });

  test('the names the Grep description promises are there', () => {
    expect(Object.keys(FILE_TYPES)).toEqual(expect.arrayContaining(['js', 'ts', 'py', 'rust', 'go', 'java']));
  });
});
