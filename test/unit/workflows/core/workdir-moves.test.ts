import { currentInput, currentPath, movedPath } from '../../../../src/workflows/core/workdir-moves';

test('a path is moved when it is the workdir or under it, and only then', () => {
  expect(movedPath('/a/s1', '/a/s1', '/b')).toBe('/b');
  expect(movedPath('/a/s1/src/x.ts', '/a/s1', '/b')).toBe('/b/src/x.ts');
  expect(movedPath('/a/s10/x.ts', '/a/s1', '/b')).toBe('/a/s10/x.ts');
});

describe('paths after a move', () => {
  const state = {
    workdirMoves: [
      { from: '/a/s1', to: '/b/s1-moved-1' },
      { from: '/b/s1-moved-1', to: '/c/s1-moved-2' },
    ],
  };

  test('a path under any earlier workdir is under the current one; others stay', () => {
    expect(currentPath(state, '/a/s1/src/x.ts')).toBe('/c/s1-moved-2/src/x.ts');
    expect(currentPath(state, '/b/s1-moved-1/y.ts')).toBe('/c/s1-moved-2/y.ts');
    expect(currentPath(state, '/elsewhere/z.ts')).toBe('/elsewhere/z.ts');
    expect(currentPath({}, '/a/s1/src/x.ts')).toBe('/a/s1/src/x.ts');
  });

  test("a call's file_path and path follow the move; relative paths and other fields stay", () => {
    expect(currentInput(state, { file_path: '/a/s1/x.ts', content: '/a/s1/x.ts' })).toEqual({
      file_path: '/c/s1-moved-2/x.ts',
      content: '/a/s1/x.ts',
    });
    expect(currentInput(state, { pattern: 'TODO', path: '/a/s1/src' })).toEqual({
      pattern: 'TODO',
      path: '/c/s1-moved-2/src',
    });
    expect(currentInput(state, { file_path: 'x.ts' })).toEqual({ file_path: 'x.ts' });
    const input = { file_path: '/a/s1/x.ts' };
    expect(currentInput({}, input)).toBe(input);
  });
});
