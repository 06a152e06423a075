import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HogQLSyntaxError } from '../../src/hogql/errors.js';
import { MAX_BRACKET_DEPTH, MAX_QUERY_LENGTH, tokenize } from '../../src/hogql/lexer.js';

function kinds(text: string): string[] {
  return tokenize(text).map((token) => `${token.type}:${token.value}`);
}

function syntaxError(text: string, message: string | RegExp, start?: number, end?: number): void {
  assert.throws(
    () => tokenize(text),
    (error: unknown) => {
      assert.ok(error instanceof HogQLSyntaxError, String(error));
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      if (start !== undefined) assert.equal(error.start, start);
      if (end !== undefined) assert.equal(error.end, end);
      return true;
    },
  );
}

describe('HogQL lexer', () => {
  test('identifiers, keywords (upper-cased for comparison) and quoted identifiers', () => {
    const tokens = tokenize('select $browser, `a b`, "c""d" FROM events');
    assert.deepEqual(
      tokens.map((token) => [token.type, token.value, token.upper]),
      [
        ['identifier', 'select', 'SELECT'],
        ['identifier', '$browser', '$BROWSER'],
        ['punct', ',', ','],
        ['quotedIdentifier', 'a b', ''],
        ['punct', ',', ','],
        ['quotedIdentifier', 'c"d', ''],
        ['identifier', 'FROM', 'FROM'],
        ['identifier', 'events', 'EVENTS'],
        ['eof', '<EOF>', '<EOF>'],
      ],
    );
  });

  test('strings are unescaped: doubled quotes and backslash escapes', () => {
    assert.deepEqual(kinds(`'it''s' 'a\\'b' 'tab\\tnew\\nline' 'back\\\\slash'`), [
      "string:it's",
      "string:a'b",
      'string:tab\tnew\nline',
      'string:back\\slash',
      'eof:<EOF>',
    ]);
  });

  test('numbers: integers, floats with exponents, hex; 1.5 is two integers around a dot for the parser', () => {
    assert.deepEqual(kinds('1 1e5 2.5E-3 0x1F 1.5 x.1.2'), [
      'number:1',
      'float:1e5',
      'float:2.5E-3',
      'hex:0x1F',
      'number:1',
      'punct:.',
      'number:5',
      'identifier:x',
      'punct:.',
      'number:1',
      'punct:.',
      'number:2',
      'eof:<EOF>',
    ]);
  });

  test('operators take the longest match', () => {
    assert.deepEqual(kinds('a=~*b !~* c <> d ?? e ?. f -> g || h :: i'), [
      'identifier:a',
      'punct:=~*',
      'identifier:b',
      'punct:!~*',
      'identifier:c',
      'punct:<>',
      'identifier:d',
      'punct:??',
      'identifier:e',
      'punct:?.',
      'identifier:f',
      'punct:->',
      'identifier:g',
      'punct:||',
      'identifier:h',
      'punct:::',
      'identifier:i',
      'eof:<EOF>',
    ]);
  });

  test('comments are skipped: --, // and /* */', () => {
    assert.deepEqual(kinds('1 -- one\n+ /* two */ 2 // three'), ['number:1', 'punct:+', 'number:2', 'eof:<EOF>']);
  });

  test('positions are character offsets', () => {
    const [select, one] = tokenize('  select 1');
    assert.deepEqual([select!.start, select!.end, one!.start, one!.end], [2, 8, 9, 10]);
  });

  test('unterminated strings and identifiers, and unknown characters, are syntax errors at their place', () => {
    syntaxError("select 'abc", 'Unterminated string: the quote opened here is never closed', 7, 11);
    syntaxError('select `abc', 'Unterminated identifier: the quote opened here is never closed', 7, 11);
    syntaxError('select 1 /* open', 'Unterminated comment', 9, 16);
    syntaxError('select @', "token recognition error at: '@'", 7, 8);
  });

  test(`texts over ${MAX_QUERY_LENGTH} characters are refused before lexing`, () => {
    assert.equal(tokenize(`select '${'x'.repeat(MAX_QUERY_LENGTH - 9)}'`).length, 3);
    syntaxError(`select '${'x'.repeat(MAX_QUERY_LENGTH)}'`, /^Query is too long: HogQL texts may hold at most 262144 characters/);
  });

  test(`brackets nest at most ${MAX_BRACKET_DEPTH} levels, counted outside strings and comments`, () => {
    const legal = `${'('.repeat(MAX_BRACKET_DEPTH)}1${')'.repeat(MAX_BRACKET_DEPTH)}`;
    assert.equal(tokenize(legal).length, MAX_BRACKET_DEPTH * 2 + 2);
    const deep = `${'['.repeat(MAX_BRACKET_DEPTH + 1)}1`;
    syntaxError(deep, 'Query is nested too deeply: brackets may be nested at most 64 levels.', MAX_BRACKET_DEPTH, MAX_BRACKET_DEPTH + 1);
    assert.equal(tokenize(`'${'('.repeat(500)}' /* ${'{'.repeat(500)} */ -- ${'['.repeat(500)}`).length, 2);
  });

  test('template strings are refused with a clear message', () => {
    syntaxError("select f'a{b}'", "Template strings (f'…') are not supported in Tally's HogQL", 7, 9);
  });
});
