import { ValidationError } from '../../errors.js';

/**
 * Trend formulas (`A + B`, `(A-B)/B*100`): letters name the series in entity order. Parsed once
 * (a bad formula is a 400, never a warehouse error) and evaluated element-wise on the series'
 * aggregated values with IEEE arithmetic, as ClickHouse's arrayMap would.
 */

type FormulaNode =
  | { kind: 'number'; value: number }
  | { kind: 'series'; index: number }
  | { kind: 'negate'; operand: FormulaNode }
  | { kind: 'binary'; operator: '+' | '-' | '*' | '/'; left: FormulaNode; right: FormulaNode };

export interface Formula {
  text: string;
  root: FormulaNode;
}

type Token = { kind: 'number'; value: number } | { kind: 'letter'; value: string } | { kind: 'symbol'; value: string };

function reject(detail: string): never {
  throw new ValidationError('formula', detail);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\d+(?:\.\d+)?|\.\d+)|([A-Za-z])|(.))/gy;
  for (let match = pattern.exec(text); match && match[0].trim() !== '' ; match = pattern.exec(text)) {
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: Number(match[1]) });
    else if (match[2] !== undefined) tokens.push({ kind: 'letter', value: match[2] });
    else tokens.push({ kind: 'symbol', value: match[3]! });
  }
  return tokens;
}

/** Parses `text` for `seriesCount` series; unknown letters, `^` and syntax errors are 400s. */
export function parseFormula(text: string, seriesCount: number): Formula {
  const tokens = tokenize(text);
  let position = 0;
  const peek = () => tokens[position];
  const letters = Array.from({ length: seriesCount }, (_, i) => String.fromCharCode(65 + i));

  const primary = (): FormulaNode => {
    const token = tokens[position++];
    if (!token) reject(`Formula "${text}" ends unexpectedly.`);
    if (token.kind === 'number') return { kind: 'number', value: token.value };
    if (token.kind === 'letter') {
      const index = letters.indexOf(token.value);
      if (index < 0) {
        reject(`Formula "${text}" references series ${token.value}, but only ${seriesCount} series are defined (${letters.join(', ')}).`);
      }
      return { kind: 'series', index };
    }
    if (token.value === '(') {
      const inner = sum();
      if (tokens[position++]?.value !== ')') reject(`Formula "${text}" has an unclosed parenthesis.`);
      return inner;
    }
    if (token.value === '-') return { kind: 'negate', operand: primary() };
    if (token.value === '+') return primary();
    reject(`Formula "${text}" has an unexpected "${token.value}".`);
  };

  const product = (): FormulaNode => {
    let node = primary();
    while (peek()?.kind === 'symbol' && (peek()!.value === '*' || peek()!.value === '/')) {
      const operator = tokens[position++]!.value as '*' | '/';
      node = { kind: 'binary', operator, left: node, right: primary() };
    }
    return node;
  };

  function sum(): FormulaNode {
    let node = product();
    while (peek()?.kind === 'symbol' && (peek()!.value === '+' || peek()!.value === '-')) {
      const operator = tokens[position++]!.value as '+' | '-';
      node = { kind: 'binary', operator, left: node, right: product() };
    }
    return node;
  }

  const root = sum();
  const rest = peek();
  if (rest) reject(`Formula "${text}" has an unexpected "${rest.value}".`);
  return { text, root };
}

function evaluateNode(node: FormulaNode, values: number[]): number {
  switch (node.kind) {
    case 'number':
      return node.value;
    case 'series':
      return values[node.index] ?? 0;
    case 'negate':
      return -evaluateNode(node.operand, values);
    case 'binary': {
      const left = evaluateNode(node.left, values);
      const right = evaluateNode(node.right, values);
      if (node.operator === '+') return left + right;
      if (node.operator === '-') return left - right;
      if (node.operator === '*') return left * right;
      return left / right;
    }
  }
}

/** The formula at one point, given each series' value there (missing series count as 0). */
export function evaluateFormula(formula: Formula, values: number[]): number {
  return evaluateNode(formula.root, values);
}

/** Element-wise over series of possibly different lengths (shorter ones padded with 0). */
export function evaluateFormulaSeries(formula: Formula, series: number[][]): number[] {
  const length = Math.max(0, ...series.map((data) => data.length));
  return Array.from({ length }, (_, i) => evaluateFormula(formula, series.map((data) => data[i] ?? 0)));
}
