import { HogQLSyntaxError } from './errors.js';

/** Longest HogQL text Tally parses; long lists go in `values`, which has no such limit. */
export const MAX_QUERY_LENGTH = 262_144;
/** Deepest nesting of `(`, `[` and `{` outside literals and comments. */
export const MAX_BRACKET_DEPTH = 64;

export type TokenType = 'identifier' | 'quotedIdentifier' | 'number' | 'float' | 'hex' | 'string' | 'punct' | 'eof';

export interface Token {
  type: TokenType;
  /** The identifier's name (unquoted), the string's value, the number's digits or the punctuation itself. */
  value: string;
  /** The identifier upper-cased, to compare with keywords; quoted identifiers are never keywords. */
  upper: string;
  start: number;
  end: number;
}

/** Longest first, so `=~*` wins over `=~` and `=`. */
const PUNCTUATION = [
  '=~*',
  '!~*',
  '->',
  '||',
  '==',
  '>=',
  '<=',
  '!=',
  '<>',
  '~*',
  '=~',
  '!~',
  '?.',
  '??',
  '::',
  '*',
  ':',
  ',',
  '-',
  '.',
  '=',
  '>',
  '<',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '%',
  '+',
  '?',
  '~',
  ';',
  '/',
  '#',
];

const IDENTIFIER_START = /[A-Za-z_$]/;
const IDENTIFIER_PART = /[A-Za-z0-9_$]/;
const DIGIT = /[0-9]/;
const HEX_DIGIT = /[0-9a-fA-F]/;

const SIMPLE_ESCAPES: Record<string, string> = { b: '\b', f: '\f', r: '\r', n: '\n', t: '\t', '0': '\0', a: '\x07', v: '\v', '\\': '\\' };

function tooLong(): never {
  throw new HogQLSyntaxError(`Query is too long: HogQL texts may hold at most ${MAX_QUERY_LENGTH} characters. Pass long lists in "values".`, 0, 0);
}

/**
 * Splits HogQL text into tokens, skipping whitespace and comments (`--`, `//`, `/* *\/`). Quoted
 * text is unescaped here: `'it''s'` and `'it\'s'` are both `it's`. Refuses texts over the length
 * limit and brackets nested deeper than the depth limit, before any parsing.
 */
export function tokenize(text: string): Token[] {
  if (text.length > MAX_QUERY_LENGTH) tooLong();
  const tokens: Token[] = [];
  let depth = 0;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const char = text[index]!;
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\v' || char === '\f') {
      index++;
      continue;
    }
    if ((char === '-' && text[index + 1] === '-') || (char === '/' && text[index + 1] === '/')) {
      while (index < length && text[index] !== '\n' && text[index] !== '\r') index++;
      continue;
    }
    if (char === '/' && text[index + 1] === '*') {
      const close = text.indexOf('*/', index + 2);
      if (close === -1) throw new HogQLSyntaxError('Unterminated comment', index, length);
      index = close + 2;
      continue;
    }
    const start = index;
    if (char === "'" || char === '`' || char === '"') {
      const [value, next] = quoted(text, index, char);
      const type = char === "'" ? 'string' : 'quotedIdentifier';
      tokens.push({ type, value, upper: '', start, end: next });
      index = next;
      continue;
    }
    if (IDENTIFIER_START.test(char)) {
      if ((char === 'f' || char === 'F') && text[index + 1] === "'") {
        throw new HogQLSyntaxError("Template strings (f'…') are not supported in Tally's HogQL", index, index + 2);
      }
      index++;
      while (index < length && IDENTIFIER_PART.test(text[index]!)) index++;
      const value = text.slice(start, index);
      tokens.push({ type: 'identifier', value, upper: value.toUpperCase(), start, end: index });
      continue;
    }
    if (DIGIT.test(char)) {
      index = number(text, index, tokens);
      continue;
    }
    if (char === '.' && DIGIT.test(text[index + 1] ?? '') && exponentAfterDigits(text, index + 1) !== null) {
      const end = exponentAfterDigits(text, index + 1)!;
      tokens.push({ type: 'float', value: text.slice(start, end), upper: '', start, end });
      index = end;
      continue;
    }
    const punct = PUNCTUATION.find((candidate) => text.startsWith(candidate, index));
    if (!punct) throw new HogQLSyntaxError(`token recognition error at: '${char}'`, index, index + 1);
    if (punct === '(' || punct === '[' || punct === '{') {
      depth++;
      if (depth > MAX_BRACKET_DEPTH) {
        throw new HogQLSyntaxError(`Query is nested too deeply: brackets may be nested at most ${MAX_BRACKET_DEPTH} levels.`, index, index + 1);
      }
    } else if (punct === ')' || punct === ']' || punct === '}') {
      depth = Math.max(0, depth - 1);
    }
    tokens.push({ type: 'punct', value: punct, upper: punct, start, end: index + punct.length });
    index += punct.length;
  }
  tokens.push({ type: 'eof', value: '<EOF>', upper: '<EOF>', start: length, end: length });
  return tokens;
}

/** The end of `digits [eE] [+-] digits` starting at `index`, or null when no exponent follows the digits. */
function exponentAfterDigits(text: string, index: number): number | null {
  let at = index;
  while (DIGIT.test(text[at] ?? '')) at++;
  if (text[at] !== 'e' && text[at] !== 'E') return null;
  at++;
  if (text[at] === '+' || text[at] === '-') at++;
  if (!DIGIT.test(text[at] ?? '')) return null;
  while (DIGIT.test(text[at] ?? '')) at++;
  return at;
}

/**
 * Numbers as the grammar's lexer reads them: hex, digits with an exponent (a float), or plain
 * digits. `1.5` is two integers around a dot here, joined by the parser, so `t.1.2` stays two
 * tuple accesses.
 */
function number(text: string, start: number, tokens: Token[]): number {
  if (text[start] === '0' && (text[start + 1] === 'x' || text[start + 1] === 'X') && HEX_DIGIT.test(text[start + 2] ?? '')) {
    let at = start + 2;
    while (HEX_DIGIT.test(text[at] ?? '')) at++;
    tokens.push({ type: 'hex', value: text.slice(start, at), upper: '', start, end: at });
    return at;
  }
  let at = start;
  while (DIGIT.test(text[at] ?? '')) at++;
  const exponent = exponentAfterDigits(text, start);
  if (exponent !== null) {
    tokens.push({ type: 'float', value: text.slice(start, exponent), upper: '', start, end: exponent });
    return exponent;
  }
  if (text[at] === '.' && DIGIT.test(text[at + 1] ?? '')) {
    const fractionExponent = exponentAfterDigits(text, at + 1);
    if (fractionExponent !== null) {
      tokens.push({ type: 'float', value: text.slice(start, fractionExponent), upper: '', start, end: fractionExponent });
      return fractionExponent;
    }
  }
  tokens.push({ type: 'number', value: text.slice(start, at), upper: '', start, end: at });
  return at;
}

/** A quoted string or identifier starting at `start`: its unescaped value and the index after it. */
function quoted(text: string, start: number, quote: string): [string, number] {
  const parts: string[] = [];
  let index = start + 1;
  while (index < text.length) {
    let plain = index;
    while (plain < text.length && text[plain] !== quote && text[plain] !== '\\') plain++;
    if (plain > index) parts.push(text.slice(index, plain));
    index = plain;
    if (index >= text.length) break;
    if (text[index] === quote) {
      if (text[index + 1] === quote) {
        parts.push(quote);
        index += 2;
        continue;
      }
      return [parts.join(''), index + 1];
    }
    const next = text[index + 1];
    if (next === undefined) break;
    parts.push(SIMPLE_ESCAPES[next] ?? next);
    index += 2;
  }
  const what = quote === "'" ? 'string' : 'identifier';
  throw new HogQLSyntaxError(`Unterminated ${what}: the quote opened here is never closed`, start, text.length);
}
