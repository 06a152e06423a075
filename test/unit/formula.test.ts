import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { evaluateFormula, evaluateFormulaSeries, MAX_FORMULA_LENGTH, MAX_FORMULA_NESTING, parseFormula } from '../../src/insights/trends/formula.js';

/** The formula's value for series A, B, C, D = 2, 3, 5, 7. */
function formulaValue(text: string): number {
  return evaluateFormula(parseFormula(text, 4), [2, 3, 5, 7]);
}

function rejects(text: string, detail: string, seriesCount = 2): void {
  assert.throws(
    () => parseFormula(text, seriesCount),
    (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.attr, 'formula');
      assert.equal(error.detail, detail);
      return true;
    },
    JSON.stringify(text.slice(0, 80)),
  );
}

const ALPHABET_HINT = 'which is not part of a formula: use series letters, numbers, + - * / and parentheses.';

describe('trend formula', () => {
  test('precedence, left associativity, signs, numbers and whitespace', () => {
    assert.equal(formulaValue('A + B'), 5);
    assert.equal(formulaValue('A - B - C'), -6);
    assert.equal(formulaValue('D / A / 2'), 1.75);
    assert.equal(formulaValue('A - B * C + D / 2'), -9.5);
    assert.equal(formulaValue('(A + B) * C'), 25);
    assert.equal(formulaValue('-A * -B'), 6);
    assert.equal(formulaValue('2 * -(A - B)'), 2);
    assert.equal(formulaValue('--A + +B - -C'), 10);
    assert.equal(formulaValue('.5 * D + 1. + 10.25'), 14.75);
    assert.equal(formulaValue('A\t+\nB\r\n*  C'), 17);
    assert.equal(formulaValue('(A-B)/B*100'), -33.33333333333333);
    assert.equal(formulaValue('A / 0'), Infinity);
    assert.ok(Number.isNaN(formulaValue('(A - A) / 0')));
    assert.deepEqual(evaluateFormulaSeries(parseFormula('A - B', 2), [[1, 2, 3], [1]]), [0, 2, 3]);
  });

  test('a flat chain as long as the limit allows is read without recursion per term', () => {
    const longest = `A${'+A'.repeat(2047)} `;
    assert.equal(longest.length, MAX_FORMULA_LENGTH);
    assert.equal(evaluateFormula(parseFormula(longest, 1), [3]), 3 * 2048);
    const mixed = `A${'*B/B-A+A'.repeat(500)}`;
    assert.equal(evaluateFormula(parseFormula(mixed, 2), [3, 7]), 3);
  });

  test('a formula longer than the limit is a 400, however it is made', () => {
    const huge = `A${'+A'.repeat(30_000)}`;
    rejects(huge, 'Formula is 60001 characters long; the most a formula may have is 4096.', 1);
    rejects('A'.padEnd(MAX_FORMULA_LENGTH + 1, ' '), 'Formula is 4097 characters long; the most a formula may have is 4096.', 1);
  });

  test('nesting of parentheses and signs is bounded', () => {
    const parenthesised = (depth: number) => `${'('.repeat(depth)}A${')'.repeat(depth)}`;
    assert.equal(evaluateFormula(parseFormula(parenthesised(MAX_FORMULA_NESTING), 1), [4]), 4);
    assert.equal(evaluateFormula(parseFormula(`${'-'.repeat(MAX_FORMULA_NESTING)}A`, 1), [4]), 4);
    assert.equal(evaluateFormula(parseFormula(`${'(-'.repeat(MAX_FORMULA_NESTING / 2)}A${')'.repeat(MAX_FORMULA_NESTING / 2)}`, 1), [4]), 4);
    const tooDeep = 'Formula nests parentheses and signs more than 64 deep.';
    rejects(parenthesised(MAX_FORMULA_NESTING + 1), tooDeep, 1);
    rejects(parenthesised(2000), tooDeep, 1);
    rejects(`${'-'.repeat(MAX_FORMULA_NESTING + 1)}A`, tooDeep, 1);
    rejects(`${'+'.repeat(4000)}A`, tooDeep, 1);
    rejects(`A * ${'(-'.repeat(33)}A${')'.repeat(33)}`, tooDeep, 1);
  });

  test('characters outside the grammar are a 400 naming the character, never dropped', () => {
    rejects("'A'", `Formula "'A'" has "'" (U+0027) at character 1, ${ALPHABET_HINT}`);
    rejects('A + `B`', `Formula "A + \`B\`" has "\`" (U+0060) at character 5, ${ALPHABET_HINT}`);
    rejects('A + "B"', `Formula "A + "B"" has """ (U+0022) at character 5, ${ALPHABET_HINT}`);
    rejects('A ^ 2', `Formula "A ^ 2" has "^" (U+005E) at character 3, ${ALPHABET_HINT}`);
    rejects('A % B', `Formula "A % B" has "%" (U+0025) at character 3, ${ALPHABET_HINT}`);
    rejects('A, B', `Formula "A, B" has "," (U+002C) at character 2, ${ALPHABET_HINT}`);
    rejects('[A]', `Formula "[A]" has "[" (U+005B) at character 1, ${ALPHABET_HINT}`);
    rejects('A_B', `Formula "A_B" has "_" (U+005F) at character 2, ${ALPHABET_HINT}`);
    rejects('😀😀 + A', `Formula "😀😀 + A" has "😀" (U+1F600) at character 1, ${ALPHABET_HINT}`);
    rejects('A + é', `Formula "A + é" has "é" (U+00E9) at character 5, ${ALPHABET_HINT}`);
    rejects('A\u0000', `Formula "A\u0000" has "\u0000" (U+0000) at character 2, ${ALPHABET_HINT}`);
    rejects('A\u200b+ B', `Formula "A\u200b+ B" has "\u200b" (U+200B) at character 2, ${ALPHABET_HINT}`);
  });

  test('syntax errors and unknown series', () => {
    rejects('A +', 'Formula "A +" ends unexpectedly.');
    rejects('', 'Formula "" ends unexpectedly.');
    rejects('(A + B', 'Formula "(A + B" has an unclosed parenthesis.');
    rejects('A + B)', 'Formula "A + B)" has an unexpected ")".');
    rejects('A B', 'Formula "A B" has an unexpected "B".');
    rejects('A * / B', 'Formula "A * / B" has an unexpected "/".');
    rejects('()', 'Formula "()" has an unexpected ")".');
    rejects('A + 1.2.3', 'Formula "A + 1.2.3" has "1.2.3", which is not a number.');
    rejects('A + .', 'Formula "A + ." has ".", which is not a number.');
    rejects('A + C', 'Formula "A + C" references series C, but only 2 series are defined (A, B).');
    rejects('a + B', 'Formula "a + B" references series a, but only 2 series are defined (A, B).');
  });
});
