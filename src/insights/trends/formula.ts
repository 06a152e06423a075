import { ValidationError } from '../../errors.js';

/**
 * Trend formulas (`A + B`, `(A-B)/B*100`): letters name the series in entity order. Parsed once
 * (a bad formula is a 400, never a warehouse error) and evaluated element-wise on the series'
 * aggregated values with IEEE arithmetic, as ClickHouse's arrayMap would.
 *
 * Grammar (whitespace separates tokens anywhere; every other character is an error):
 *   sum     := product (('+' | '-') product)*
 *   product := operand (('*' | '/') operand)*
 *   operand := ('+' | '-')* (number | letter | '(' sum ')')
 * Operators of one precedence are read in a loop into one chain node, so a long `A+A+…` costs
 * no stack; only parentheses and signs nest, and their depth is bounded.
 */

/**
 * The longest formula accepted. A formula over the at most 26 series letters, each with a
 * coefficient and parentheses, takes a few hundred characters; 4096 leaves ample room for
 * generated ones and fits a GET query string, while bounding the work of evaluating the formula
 * at every point of every breakdown value and period, and the label that repeats its text.
 */
export const MAX_FORMULA_LENGTH = 4096;

/** How deep parentheses and signs may nest: far beyond any real formula, and a bound on evaluation's recursion. */
export const MAX_FORMULA_NESTING = 64;

type Operator = '+' | '-' | '*' | '/';

type FormulaNode =
  | { kind: 'number'; value: number }
  | { kind: 'series'; index: number }
  | { kind: 'negate'; operand: FormulaNode }
  /** `first`, then each operator applied left to right: the operands of one precedence level. */
  | { kind: 'chain'; first: FormulaNode; rest: Array<{ operator: Operator; operand: FormulaNode }> };

export interface Formula {
  text: string;
  root: FormulaNode;
}

type Token = { kind: 'number'; value: number } | { kind: 'letter'; value: string } | { kind: 'symbol'; value: string };

function reject(detail: string): never {
  throw new ValidationError('formula', detail);
}

/** One token at the pattern's position: whitespace, a run of digits and dots, a letter, or an operator or parenthesis. */
const TOKEN = /(\s+)|([0-9.]+)|([A-Za-z])|([-+*/()])/y;
const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < text.length) {
    TOKEN.lastIndex = position;
    const match = TOKEN.exec(text);
    if (!match) {
      const codePoint = text.codePointAt(position)!;
      // The code point names characters that do not show, such as a zero-width space.
      const unicode = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
      const characterNumber = [...text.slice(0, position)].length + 1;
      reject(
        `Formula "${text}" has "${String.fromCodePoint(codePoint)}" (${unicode}) at character ${characterNumber}, ` +
          'which is not part of a formula: use series letters, numbers, + - * / and parentheses.',
      );
    }
    const [whole, , digits, letter, symbol] = match;
    if (digits !== undefined) {
      if (!NUMBER.test(digits)) reject(`Formula "${text}" has "${digits}", which is not a number.`);
      tokens.push({ kind: 'number', value: Number(digits) });
    } else if (letter !== undefined) tokens.push({ kind: 'letter', value: letter });
    else if (symbol !== undefined) tokens.push({ kind: 'symbol', value: symbol });
    position += whole.length;
  }
  return tokens;
}

class FormulaParser {
  private position = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
    private readonly letters: string[],
  ) {}

  parse(): FormulaNode {
    const root = this.sum(0);
    const rest = this.tokens[this.position];
    if (rest) reject(`Formula "${this.text}" has an unexpected "${rest.value}".`);
    return root;
  }

  /** `depth`: the parentheses and signs around this part of the formula. */
  private sum(depth: number): FormulaNode {
    return this.chain(['+', '-'], () => this.product(depth));
  }

  private product(depth: number): FormulaNode {
    return this.chain(['*', '/'], () => this.operand(depth));
  }

  private chain(operators: Operator[], operand: () => FormulaNode): FormulaNode {
    const first = operand();
    const rest: Array<{ operator: Operator; operand: FormulaNode }> = [];
    for (let operator = this.nextOperator(operators); operator !== null; operator = this.nextOperator(operators)) {
      this.position++;
      rest.push({ operator, operand: operand() });
    }
    return rest.length === 0 ? first : { kind: 'chain', first, rest };
  }

  private nextOperator(operators: Operator[]): Operator | null {
    const token = this.tokens[this.position];
    return token?.kind === 'symbol' && (operators as string[]).includes(token.value) ? (token.value as Operator) : null;
  }

  private operand(depth: number): FormulaNode {
    let signs = 0;
    let negations = 0;
    for (let sign = this.nextOperator(['+', '-']); sign !== null; sign = this.nextOperator(['+', '-'])) {
      this.position++;
      signs++;
      if (sign === '-') negations++;
    }
    let node = this.primary(this.nested(depth + signs));
    for (let i = 0; i < negations; i++) node = { kind: 'negate', operand: node };
    return node;
  }

  private primary(depth: number): FormulaNode {
    const token = this.tokens[this.position++];
    if (!token) reject(`Formula "${this.text}" ends unexpectedly.`);
    if (token.kind === 'number') return { kind: 'number', value: token.value };
    if (token.kind === 'letter') {
      const index = this.letters.indexOf(token.value);
      if (index < 0) {
        reject(`Formula "${this.text}" references series ${token.value}, but only ${this.letters.length} series are defined (${this.letters.join(', ')}).`);
      }
      return { kind: 'series', index };
    }
    if (token.value === '(') {
      const inner = this.sum(this.nested(depth + 1));
      if (this.tokens[this.position++]?.value !== ')') reject(`Formula "${this.text}" has an unclosed parenthesis.`);
      return inner;
    }
    reject(`Formula "${this.text}" has an unexpected "${token.value}".`);
  }

  private nested(depth: number): number {
    if (depth > MAX_FORMULA_NESTING) {
      reject(`Formula nests parentheses and signs more than ${MAX_FORMULA_NESTING} deep.`);
    }
    return depth;
  }
}

/** Parses `text` for `seriesCount` series; unknown letters, other characters, syntax errors, excess length or nesting are 400s. */
export function parseFormula(text: string, seriesCount: number): Formula {
  if (text.length > MAX_FORMULA_LENGTH) {
    reject(`Formula is ${text.length} characters long; the most a formula may have is ${MAX_FORMULA_LENGTH}.`);
  }
  const letters = Array.from({ length: seriesCount }, (_, i) => String.fromCharCode(65 + i));
  return { text, root: new FormulaParser(text, tokenize(text), letters).parse() };
}

function apply(operator: Operator, left: number, right: number): number {
  if (operator === '+') return left + right;
  if (operator === '-') return left - right;
  if (operator === '*') return left * right;
  return left / right;
}

function evaluateNode(node: FormulaNode, values: number[]): number {
  switch (node.kind) {
    case 'number':
      return node.value;
    case 'series':
      return values[node.index] ?? 0;
    case 'negate':
      return -evaluateNode(node.operand, values);
    case 'chain': {
      let result = evaluateNode(node.first, values);
      for (const { operator, operand } of node.rest) result = apply(operator, result, evaluateNode(operand, values));
      return result;
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
  return Array.from({ length }, (_, i) =>
    evaluateFormula(
      formula,
      series.map((data) => data[i] ?? 0),
    ),
  );
}
