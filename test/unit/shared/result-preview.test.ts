import { usefulLine, withFailureLine } from '../../../src/shared/result-preview';
import { formatEntry } from '../../../src/cli/print-transcript';

const npmJest = `> shop@1.0.0 test
> jest

FAIL src/cart.test.js
  cart
    ✓ adds an item (3 ms)
    ✕ applies the discount (5 ms)

  ● cart › applies the discount

    expect(received).toBe(expected) // Object.is equality

    Expected: 90
    Received: 100

Tests:       1 failed, 1 passed, 2 total

Exit code: 1`;

const pytest = `============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0
rootdir: /work/shop
collected 3 items

tests/test_cart.py .F.                                                   [100%]

=================================== FAILURES ===================================
________________________________ test_discount _________________________________

    def test_discount():
>       assert total([100], discount=0.1) == 90
E       assert 100 == 90

tests/test_cart.py:8: AssertionError
=========================== short test summary info ============================
FAILED tests/test_cart.py::test_discount - assert 100 == 90
========================= 1 failed, 2 passed in 0.03s ==========================

Exit code: 1`;

const goTest = `=== RUN   TestTotal
--- PASS: TestTotal (0.00s)
=== RUN   TestDiscount
    cart_test.go:12: total(100, 0.1) = 100, want 90
--- FAIL: TestDiscount (0.00s)
FAIL
FAIL	example.com/shop	0.002s

Exit code: 1`;

const tsc = `> shop@1.0.0 build
> tsc -p .

src/cart.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.

Exit code: 2`;

const nodeCrash = `> shop@1.0.0 start
> node server.js

/work/shop/server.js:3
const port = config.port;
                    ^

TypeError: Cannot read properties of undefined (reading 'port')
    at Object.<anonymous> (/work/shop/server.js:3:21)

Node.js v20.19.0

Exit code: 1`;

const tap = `TAP version 13
# cart
ok 1 adds an item
not ok 2 applies the discount
  ---
  operator: equal
  ...

Exit code: 1`;

describe('usefulLine', () => {
  test.each([
    ['npm test with jest', npmJest, 'FAIL src/cart.test.js'],
    ['pytest', pytest, 'E       assert 100 == 90'],
    ['go test -v', goTest, '--- FAIL: TestDiscount (0.00s)'],
    ['tsc', tsc, "src/cart.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'."],
    ['a node crash', nodeCrash, "TypeError: Cannot read properties of undefined (reading 'port')"],
    ['TAP', tap, 'not ok 2 applies the discount'],
    ['a command that only says how it ended', '> shop@1.0.0 lint\n> eslint .\n\nExit code: 1', 'Exit code: 1'],
  ])('a failed %s shows its first failure', (_name, output, line) => {
    expect(usefulLine(output, true)).toBe(line);
  });

  test('a result that did not fail shows its first line with text, whatever it says', () => {
    expect(usefulLine('\n  3 errors fixed, FAIL count 0\nmore', false)).toBe('  3 errors fixed, FAIL count 0');
  });

  test('a failure with nothing that looks like one shows its first line with text', () => {
    expect(usefulLine('\n<tool_use_error>File has not been read yet.</tool_use_error>', true)).toBe(
      '<tool_use_error>File has not been read yet.</tool_use_error>',
    );
  });
});

describe('withFailureLine', () => {
  const long = `${'> shop@1.0.0 test\n'.repeat(200)}FAIL src/cart.test.js\n\nExit code: 1`;
  const stored = {
    ref: `sha256:${'a'.repeat(64)}`,
    chars: long.length,
    preview: `${long.slice(0, 300)}… (${long.length} chars)`,
  };

  test("adds a stored failure's failure line to its preview, where the transcript line finds it", () => {
    const content = withFailureLine(stored, long, true);
    expect(content).toEqual({ ...stored, preview: `${stored.preview}\nFAIL src/cart.test.js` });
    const preview = 'preview' in content ? content.preview : '';
    expect(formatEntry({ type: 'tool_result', turn: 2, toolUseId: 't', name: 'Bash', isError: true, preview })).toBe(
      '  ✗ Bash: FAIL src/cart.test.js',
    );
  });

  test('leaves inline results, results that did not fail and previews that show the line as they are', () => {
    expect(withFailureLine({ text: npmJest }, npmJest, true)).toEqual({ text: npmJest });
    expect(withFailureLine(stored, long, false)).toBe(stored);
    const early = { ...stored, preview: 'FAIL src/cart.test.js …' };
    expect(withFailureLine(early, long, true)).toBe(early);
  });
});

test('the transcript line of a failed command is its first failure', () => {
  expect(
    formatEntry({ type: 'tool_result', turn: 1, toolUseId: 't', name: 'Bash', isError: true, preview: npmJest }),
  ).toBe('  ✗ Bash: FAIL src/cart.test.js');
  expect(
    formatEntry({
      type: 'tool_result',
      turn: 1,
      toolUseId: 't',
      name: 'Read',
      isError: false,
      preview: '     1\tcolour',
    }),
  ).toBe('  ✓ Read:      1\tcolour');
});
