import type {
  Alias,
  ArithmeticOp,
  CompareOp,
  Constant,
  CTE,
  Expr,
  JoinConstraint,
  JoinExpr,
  LimitBy,
  OrderExpr,
  Placeholder,
  RatioExpr,
  SampleExpr,
  SelectQuery,
  SelectSetQuery,
  SetOperator,
  WindowExpr,
  WindowFrameBound,
} from './ast.js';
import { emptySelect } from './ast.js';
import { HogQLSyntaxError } from './errors.js';
import { tokenize, type Token } from './lexer.js';

/**
 * Tally's HogQL parser: recursive descent over the tokens for statements, precedence climbing
 * for expressions. Each token is looked at a bounded number of times, so parsing is linear in
 * the text; recursion is bounded by the bracket limit of the lexer and the depth limit here.
 * The precedence (lowest first) is PostHog's parser's: alias, `? :`, OR, AND, NOT, BETWEEN, `??`,
 * IS NULL, comparisons, `+ - ||`, `* / %`, unary minus, postfix (`()`, `[]`, `.`, `?.`, `::`).
 */

/** Deepest nesting of prefix operators and subexpressions without brackets (`NOT NOT …`, `- - …`). */
const MAX_EXPRESSION_DEPTH = 500;

/** Words of the grammar's lexer: never a bare alias (`FROM events e` but not `FROM events where`). */
const KEYWORDS = new Set(
  (
    'ALL AND ANTI ANY ARRAY AS ASC ASCENDING ASOF BETWEEN BOTH BY CASE CAST CATCH COHORT COLLATE CROSS CUBE CURRENT DATE DAY DESC ' +
    'DESCENDING DISTINCT ELSE END EXCEPT EXTRACT FINAL FINALLY FIRST FN FOLLOWING FOR FROM FULL FUN GROUP HAVING HOUR ID IF ILIKE ' +
    'IN INF INFINITY INNER INTERSECT INTERVAL IS JOIN KEY LAST LEADING LEFT LET LIKE LIMIT MINUTE MONTH NAN NOT NULL NULLS OFFSET ' +
    'ON OR ORDER OUTER OVER PARTITION PRECEDING PREWHERE QUALIFY QUARTER RANGE RETURN RIGHT ROLLUP ROW ROWS SAMPLE SECOND SELECT ' +
    'SEMI SETTINGS SUBSTRING THEN THROW TIES TIMESTAMP TO TOP TOTALS TRAILING TRIM TRUNCATE TRY UNBOUNDED UNION USING WEEK WHEN ' +
    'WHERE WHILE WINDOW WITH YEAR YYYY'
  ).split(' '),
);

/** Keywords that may still be a bare alias. */
const ALIAS_KEYWORDS = new Set(['DATE', 'FIRST', 'ID', 'KEY']);
const COLUMN_ALIAS_KEYWORDS = new Set(['DATE', 'FIRST', 'ID']);

/** Words that end an expression where a column name could otherwise be read. */
const CLAUSE_WORDS = new Set([
  'FROM',
  'WHERE',
  'PREWHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'OFFSET',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'SETTINGS',
  'WINDOW',
  'JOIN',
  'ON',
  'USING',
  'SELECT',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'AS',
  'QUALIFY',
]);

const INTERVAL_UNITS: Record<string, string> = {
  SECOND: 'Second',
  MINUTE: 'Minute',
  HOUR: 'Hour',
  DAY: 'Day',
  WEEK: 'Week',
  MONTH: 'Month',
  QUARTER: 'Quarter',
  YEAR: 'Year',
  YYYY: 'Year',
};

/** Binding strength of the operators (higher binds tighter), as PostHog's grammar orders them. */
const PRECEDENCE = {
  TERNARY: 1,
  OR: 2,
  AND: 3,
  NOT: 4,
  BETWEEN: 5,
  NULLISH: 6,
  IS_NULL: 7,
  COMPARE: 8,
  ADD: 9,
  MUL: 10,
  NEGATE: 11,
} as const;

/** Aliases PostHog refuses: they would shadow what the printer relies on. */
const RESERVED_ALIASES = new Set(['team_id', 'true', 'false', 'null']);

const COMPARISON_PUNCT: Record<string, CompareOp> = {
  '=': '==',
  '==': '==',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  '~': '=~',
  '=~': '=~',
  '!~': '!~',
  '~*': '=~*',
  '=~*': '=~*',
  '!~*': '!~*',
};

function describe(token: Token): string {
  return token.type === 'eof' ? '<EOF>' : `'${token.value}'`;
}

class Parser {
  private position = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  // ---- token helpers

  private get current(): Token {
    return this.tokens[this.position]!;
  }

  private peek(offset = 1): Token {
    return this.tokens[Math.min(this.position + offset, this.tokens.length - 1)]!;
  }

  private advance(): Token {
    const token = this.current;
    if (token.type !== 'eof') this.position++;
    return token;
  }

  private isPunct(value: string, token = this.current): boolean {
    return token.type === 'punct' && token.value === value;
  }

  private isWord(word: string, token = this.current): boolean {
    return token.type === 'identifier' && token.upper === word;
  }

  private acceptPunct(value: string): boolean {
    if (!this.isPunct(value)) return false;
    this.advance();
    return true;
  }

  private acceptWord(word: string): boolean {
    if (!this.isWord(word)) return false;
    this.advance();
    return true;
  }

  private fail(expecting: string, token = this.current): never {
    if (token.type === 'eof') throw new HogQLSyntaxError('Unexpected end of query', token.start, token.end);
    throw new HogQLSyntaxError(`mismatched input ${describe(token)} expecting ${expecting}`, token.start, token.end);
  }

  private expectPunct(value: string): Token {
    if (!this.isPunct(value)) this.fail(`'${value}'`);
    return this.advance();
  }

  private expectWord(word: string): Token {
    if (!this.isWord(word)) this.fail(word);
    return this.advance();
  }

  private enter(): void {
    if (++this.depth > MAX_EXPRESSION_DEPTH) {
      throw new HogQLSyntaxError('Query is nested too deeply', this.current.start, this.current.end);
    }
  }

  private leave(): void {
    this.depth--;
  }

  /** Any identifier, keywords included (`AS date`, `e.key`). */
  private identifier(expecting = 'an identifier'): string {
    const token = this.current;
    if (token.type === 'identifier' || token.type === 'quotedIdentifier') {
      this.advance();
      return token.value;
    }
    return this.fail(expecting);
  }

  expectEnd(): void {
    this.acceptPunct(';');
    const token = this.current;
    if (token.type !== 'eof') throw new HogQLSyntaxError(`extraneous input ${describe(token)} expecting <EOF>`, token.start, token.end);
  }

  // ---- SELECT

  /** `select (UNION ALL select)*`, with parenthesised selects anywhere in the set. */
  parseSelectSet(): SelectQuery | SelectSetQuery {
    const start = this.current.start;
    const initial = this.parseSelectOrParens();
    const subsequent: { operator: SetOperator; query: SelectQuery | SelectSetQuery }[] = [];
    for (;;) {
      let operator: SetOperator | null = null;
      if (this.isWord('UNION')) {
        this.advance();
        // A bare UNION is UNION DISTINCT, as in PostHog's grammar.
        if (this.acceptWord('ALL')) operator = 'UNION ALL';
        else {
          this.acceptWord('DISTINCT');
          operator = 'UNION DISTINCT';
        }
      } else if (this.isWord('INTERSECT')) {
        this.advance();
        operator = this.acceptWord('DISTINCT') ? 'INTERSECT DISTINCT' : 'INTERSECT';
      } else if (this.isWord('EXCEPT')) {
        this.advance();
        operator = 'EXCEPT';
      }
      if (operator === null) break;
      subsequent.push({ operator, query: this.parseSelectOrParens() });
    }
    if (subsequent.length === 0) return initial;
    return { kind: 'SelectSetQuery', initial, subsequent, start, end: this.tokens[this.position - 1]!.end };
  }

  private parseSelectOrParens(): SelectQuery | SelectSetQuery {
    if (this.isPunct('(')) {
      this.advance();
      this.enter();
      const inner = this.parseSelectSet();
      this.leave();
      this.expectPunct(')');
      return inner;
    }
    if (this.isWord('SELECT') || this.isWord('WITH')) return this.parseSelectStatement();
    return this.fail("{SELECT, WITH, '('}");
  }

  private parseSelectStatement(): SelectQuery {
    const start = this.current.start;
    let ctes: CTE[] | null = null;
    if (this.acceptWord('WITH')) ctes = this.parseWithList();
    this.expectWord('SELECT');
    const query = emptySelect([]);
    query.start = start;
    query.ctes = ctes;
    if (this.acceptWord('DISTINCT')) query.distinct = true;
    if (this.isWord('TOP')) throw new HogQLSyntaxError('Unsupported: SELECT TOP', this.current.start, this.current.end);
    query.select = this.parseSelectColumns();
    if (this.acceptWord('FROM')) query.selectFrom = this.parseJoinExpr();
    if (this.isWord('ARRAY') || ((this.isWord('LEFT') || this.isWord('INNER')) && this.isWord('ARRAY', this.peek()))) {
      this.parseArrayJoin(query);
    }
    if (this.acceptWord('PREWHERE')) query.prewhere = this.parseExpr();
    if (this.acceptWord('WHERE')) query.where = this.parseExpr();
    if (this.isWord('GROUP')) {
      this.advance();
      this.expectWord('BY');
      if (this.isWord('CUBE') || this.isWord('ROLLUP')) {
        throw new HogQLSyntaxError(`Unsupported: GROUP BY ${this.current.upper}`, this.current.start, this.current.end);
      }
      query.groupBy = this.parseExprList();
      if (this.isWord('WITH') && (this.isWord('CUBE', this.peek()) || this.isWord('ROLLUP', this.peek()) || this.isWord('TOTALS', this.peek()))) {
        throw new HogQLSyntaxError(`Unsupported: WITH ${this.peek().upper}`, this.current.start, this.peek().end);
      }
    }
    if (this.acceptWord('HAVING')) query.having = this.parseExpr();
    if (this.isWord('WINDOW')) query.windowExprs = this.parseWindowClause();
    if (this.isWord('QUALIFY')) throw new HogQLSyntaxError('Unsupported: QUALIFY', this.current.start, this.current.end);
    if (this.isWord('ORDER')) {
      this.advance();
      this.expectWord('BY');
      query.orderBy = this.parseOrderList();
    }
    this.parseLimit(query);
    if (this.isWord('SETTINGS')) {
      throw new HogQLSyntaxError('Unsupported: SETTINGS clause: HogQL queries cannot change settings', this.current.start, this.current.end);
    }
    query.end = this.tokens[this.position - 1]!.end;
    return query;
  }

  private parseWithList(): CTE[] {
    const ctes: CTE[] = [];
    do {
      if (this.isWord('SELECT')) break;
      const start = this.current.start;
      // `name AS (SELECT …)` or `expr AS name`.
      if (
        (this.current.type === 'identifier' || this.current.type === 'quotedIdentifier') &&
        this.isWord('AS', this.peek()) &&
        this.isPunct('(', this.peek(2))
      ) {
        const afterParen = this.peek(3);
        if (this.isWord('SELECT', afterParen) || this.isWord('WITH', afterParen) || this.isPunct('(', afterParen)) {
          const name = this.identifier();
          this.advance();
          this.advance();
          this.enter();
          const expr = this.parseSelectSet();
          this.leave();
          this.expectPunct(')');
          ctes.push({ kind: 'CTE', name, expr, cteType: 'subquery', start, end: this.tokens[this.position - 1]!.end });
          continue;
        }
      }
      const expr = this.parseBinary(0);
      this.expectWord('AS');
      const name = this.identifier();
      ctes.push({ kind: 'CTE', name, expr, cteType: 'column', start, end: this.tokens[this.position - 1]!.end });
    } while (this.acceptPunct(','));
    return ctes;
  }

  private parseArrayJoin(query: SelectQuery): void {
    const start = this.current.start;
    let op: SelectQuery['arrayJoinOp'] = 'ARRAY JOIN';
    if (this.acceptWord('LEFT')) op = 'LEFT ARRAY JOIN';
    else if (this.acceptWord('INNER')) op = 'INNER ARRAY JOIN';
    this.expectWord('ARRAY');
    this.expectWord('JOIN');
    const list = this.parseExprList();
    for (const expr of list) {
      if (expr.kind !== 'Alias') throw new HogQLSyntaxError('ARRAY JOIN arrays must have an alias', start, this.tokens[this.position - 1]!.end);
    }
    query.arrayJoinOp = op;
    query.arrayJoinList = list;
  }

  private parseWindowClause(): Record<string, WindowExpr> {
    this.expectWord('WINDOW');
    const windows: Record<string, WindowExpr> = {};
    do {
      const name = this.identifier();
      this.expectWord('AS');
      this.expectPunct('(');
      windows[name] = this.parseWindowExpr();
      this.expectPunct(')');
    } while (this.acceptPunct(','));
    return windows;
  }

  private parseWindowExpr(): WindowExpr {
    const window: WindowExpr = { kind: 'WindowExpr', partitionBy: null, orderBy: null, frameMethod: null, frameStart: null, frameEnd: null };
    if (this.acceptWord('PARTITION')) {
      this.expectWord('BY');
      window.partitionBy = this.parseExprList();
    }
    if (this.acceptWord('ORDER')) {
      this.expectWord('BY');
      window.orderBy = this.parseOrderList();
    }
    if (this.isWord('ROWS') || this.isWord('RANGE')) {
      window.frameMethod = this.advance().upper as 'ROWS' | 'RANGE';
      if (this.acceptWord('BETWEEN')) {
        window.frameStart = this.parseFrameBound();
        this.expectWord('AND');
        window.frameEnd = this.parseFrameBound();
      } else {
        window.frameStart = this.parseFrameBound();
      }
    }
    return window;
  }

  private parseFrameBound(): WindowFrameBound {
    if (this.acceptWord('CURRENT')) {
      this.expectWord('ROW');
      return { type: 'CURRENT ROW', value: null };
    }
    let value: number | null = null;
    if (!this.acceptWord('UNBOUNDED')) {
      const token = this.current;
      if (token.type !== 'number') this.fail('UNBOUNDED, CURRENT or a number');
      this.advance();
      value = Number(token.value);
    }
    if (this.acceptWord('PRECEDING')) return { type: 'PRECEDING', value };
    if (this.acceptWord('FOLLOWING')) return { type: 'FOLLOWING', value };
    return this.fail('PRECEDING or FOLLOWING');
  }

  private parseLimit(query: SelectQuery): void {
    if (this.acceptWord('LIMIT')) {
      const first = this.parseExpr();
      if (this.acceptPunct(',')) {
        // `LIMIT a, b` is limit a, offset b, as PostHog's grammar reads it.
        const second = this.parseExpr();
        if (this.acceptWord('BY')) {
          query.limitBy = { n: first, offset: second, exprs: this.parseExprList() };
          return;
        }
        query.limit = first;
        query.offset = second;
      } else if (this.acceptWord('BY')) {
        query.limitBy = { n: first, offset: null, exprs: this.parseExprList() } satisfies LimitBy;
        if (this.acceptWord('LIMIT')) {
          query.limit = this.parseExpr();
          if (this.acceptPunct(',')) query.offset = this.parseExpr();
          else if (this.acceptWord('OFFSET')) query.offset = this.parseExpr();
        }
        return;
      } else {
        query.limit = first;
        if (this.acceptWord('OFFSET')) query.offset = this.parseExpr();
      }
      if (this.isWord('WITH') && this.isWord('TIES', this.peek())) {
        this.advance();
        this.advance();
        query.limitWithTies = true;
      } else if (this.acceptWord('BY')) {
        query.limitBy = { n: query.limit, offset: query.offset, exprs: this.parseExprList() };
        query.limit = null;
        query.offset = null;
      }
      return;
    }
    if (this.acceptWord('OFFSET')) query.offset = this.parseExpr();
  }

  // ---- FROM

  private parseJoinExpr(): JoinExpr {
    const first = this.parseTableExpr();
    let last = first;
    for (;;) {
      const start = this.current.start;
      let joinType: string | null = null;
      if (this.acceptPunct(',')) joinType = 'CROSS JOIN';
      else if (this.isWord('CROSS')) {
        this.advance();
        this.expectWord('JOIN');
        joinType = 'CROSS JOIN';
      } else {
        joinType = this.parseJoinOp();
      }
      if (joinType === null) break;
      const table = this.parseTableExpr();
      table.joinType = joinType;
      if (joinType !== 'CROSS JOIN') table.constraint = this.parseJoinConstraint(start);
      last.nextJoin = table;
      last = table;
    }
    return first;
  }

  /** A join operator and `JOIN`, normalised as PostHog names it (`LEFT OUTER JOIN`, `LEFT ANY JOIN`); null when none follows. */
  private parseJoinOp(): string | null {
    const save = this.position;
    const words: string[] = [];
    while (
      this.current.type === 'identifier' &&
      ['ALL', 'ANY', 'ASOF', 'INNER', 'LEFT', 'RIGHT', 'OUTER', 'SEMI', 'ANTI', 'FULL'].includes(this.current.upper)
    ) {
      words.push(this.advance().upper);
    }
    if (!this.isWord('JOIN')) {
      this.position = save;
      return null;
    }
    this.advance();
    const side = words.find((word) => word === 'LEFT' || word === 'RIGHT' || word === 'FULL');
    const outer = words.includes('OUTER');
    const modifier = words.find((word) => ['ALL', 'ANY', 'ASOF', 'SEMI', 'ANTI'].includes(word));
    if (words.length === 0) return 'JOIN';
    if (side) return [side, outer ? 'OUTER' : null, modifier ?? null, 'JOIN'].filter(Boolean).join(' ');
    return [modifier ?? null, 'INNER', 'JOIN'].filter(Boolean).join(' ');
  }

  private parseJoinConstraint(start: number): JoinConstraint {
    if (this.acceptWord('ON')) {
      const exprs = this.parseExprList();
      const expr: Expr = exprs.length === 1 ? exprs[0]! : { kind: 'Tuple', exprs };
      return { kind: 'JoinConstraint', expr, type: 'ON', start, end: this.tokens[this.position - 1]!.end };
    }
    if (this.acceptWord('USING')) {
      const parenthesised = this.isPunct('(') && !this.isSubqueryStart(1);
      if (parenthesised) this.advance();
      const exprs = this.parseExprList();
      if (parenthesised) this.expectPunct(')');
      const expr: Expr = exprs.length === 1 ? exprs[0]! : { kind: 'Tuple', exprs };
      return { kind: 'JoinConstraint', expr, type: 'USING', start, end: this.tokens[this.position - 1]!.end };
    }
    return this.fail('ON or USING');
  }

  private isSubqueryStart(offset: number): boolean {
    const token = this.peek(offset);
    return this.isWord('SELECT', token) || this.isWord('WITH', token);
  }

  private parseTableExpr(): JoinExpr {
    const start = this.current.start;
    const join: JoinExpr = {
      kind: 'JoinExpr',
      table: { kind: 'Field', chain: [] },
      tableArgs: null,
      alias: null,
      joinType: null,
      constraint: null,
      nextJoin: null,
      final: false,
      sample: null,
      start,
    };
    if (this.isPunct('(')) {
      if (this.isSubqueryStart(1) || this.isPunct('(', this.peek())) {
        this.advance();
        this.enter();
        join.table = this.parseSelectSet();
        this.leave();
        this.expectPunct(')');
      } else {
        this.fail('a table or a subquery', this.peek());
      }
    } else if (this.isPunct('{')) {
      join.table = this.parsePlaceholder();
    } else {
      const tokenStart = this.current.start;
      const chain = [this.identifier('a table')];
      while (this.isPunct('.')) {
        this.advance();
        chain.push(this.identifier('a table'));
      }
      join.table = { kind: 'Field', chain, start: tokenStart, end: this.tokens[this.position - 1]!.end };
      if (this.isPunct('(')) {
        this.advance();
        join.tableArgs = this.isPunct(')') ? [] : this.parseExprList();
        this.expectPunct(')');
      }
    }
    // Aliases may repeat (`events FORMAT CSV` is `events AS FORMAT AS CSV`): the last one counts.
    for (;;) {
      if (this.acceptWord('AS')) {
        join.alias = this.checkedAlias(this.identifier('an alias'));
        continue;
      }
      const token = this.current;
      if (token.type === 'quotedIdentifier' || (token.type === 'identifier' && (!KEYWORDS.has(token.upper) || ALIAS_KEYWORDS.has(token.upper)))) {
        this.advance();
        join.alias = this.checkedAlias(token.value);
        continue;
      }
      break;
    }
    if (this.acceptWord('FINAL')) join.final = true;
    if (this.acceptWord('SAMPLE')) join.sample = this.parseSample();
    join.end = this.tokens[this.position - 1]!.end;
    return join;
  }

  private parseSample(): SampleExpr {
    const sample = this.parseRatio();
    const offset = this.acceptWord('OFFSET') ? this.parseRatio() : null;
    return { kind: 'SampleExpr', sample, offset };
  }

  private parseRatio(): RatioExpr {
    const left = this.parseNumberLiteral();
    const right = this.acceptPunct('/') ? this.parseNumberLiteral() : null;
    return { left, right };
  }

  private parseNumberLiteral(): Constant {
    const negative = this.acceptPunct('-');
    if (!negative) this.acceptPunct('+');
    const literal = this.parseNumber();
    if (literal === null) this.fail('a number');
    if (negative && typeof literal.value === 'number') literal.value = -literal.value;
    return literal;
  }

  private checkedAlias(alias: string): string {
    if (RESERVED_ALIASES.has(alias.toLowerCase())) {
      const token = this.tokens[this.position - 1]!;
      throw new HogQLSyntaxError(`"${alias}" cannot be an alias or identifier, as it's a reserved keyword`, token.start, token.end);
    }
    return alias;
  }

  // ---- ORDER BY

  parseOrderList(): OrderExpr[] {
    const list: OrderExpr[] = [];
    do list.push(this.parseOrderExpr());
    while (this.acceptPunct(','));
    return list;
  }

  parseOrderExpr(): OrderExpr {
    const start = this.current.start;
    const expr = this.parseExpr();
    let order: 'ASC' | 'DESC' = 'ASC';
    if (this.isWord('DESC') || this.isWord('DESCENDING')) {
      this.advance();
      order = 'DESC';
    } else if (this.isWord('ASC') || this.isWord('ASCENDING')) {
      this.advance();
    }
    if (this.acceptWord('NULLS')) {
      if (!this.acceptWord('FIRST') && !this.acceptWord('LAST')) this.fail('FIRST or LAST');
    }
    if (this.acceptWord('COLLATE')) {
      if (this.current.type !== 'string') this.fail('a string');
      this.advance();
    }
    return { kind: 'OrderExpr', expr, order, start, end: this.tokens[this.position - 1]!.end };
  }

  // ---- expressions

  parseExprList(): Expr[] {
    const list: Expr[] = [this.parseExpr()];
    while (this.isPunct(',')) {
      // A trailing comma is allowed before a closing bracket or a clause.
      const next = this.peek();
      if (this.isPunct(')', next) || this.isPunct(']', next)) {
        this.advance();
        break;
      }
      this.advance();
      list.push(this.parseExpr());
    }
    return list;
  }

  /** The columns of a SELECT: expressions, each with at most one alias without AS (`count() c`). */
  private parseSelectColumns(): Expr[] {
    const columns: Expr[] = [];
    do {
      const start = this.current.start;
      let expr = this.parseExpr();
      const token = this.current;
      const bare = token.type === 'quotedIdentifier' || (token.type === 'identifier' && (!KEYWORDS.has(token.upper) || COLUMN_ALIAS_KEYWORDS.has(token.upper)));
      if (bare) {
        this.advance();
        expr = { kind: 'Alias', expr, alias: this.checkedAlias(token.value), start, end: token.end } satisfies Alias;
      }
      columns.push(expr);
    } while (this.acceptPunct(','));
    return columns;
  }

  /** An expression with an optional alias: `count() AS c`, `x AS 'label'`. */
  parseExpr(): Expr {
    this.enter();
    const start = this.current.start;
    let expr = this.parseBinary(0);
    while (this.isWord('AS')) {
      const next = this.peek();
      if (next.type !== 'identifier' && next.type !== 'quotedIdentifier' && next.type !== 'string') break;
      this.advance();
      const alias = this.checkedAlias(this.advance().value);
      expr = { kind: 'Alias', expr, alias, start, end: this.tokens[this.position - 1]!.end } satisfies Alias;
    }
    this.leave();
    return expr;
  }

  private located<T extends Expr>(expr: T, start: number): T {
    expr.start = start;
    expr.end = this.tokens[this.position - 1]!.end;
    return expr;
  }

  /** Parses operators binding at least as tightly as `min`, one loop for every level (precedence climbing). */
  private parseBinary(min: number): Expr {
    this.enter();
    const start = this.current.start;
    let expr = this.parsePrefixed();
    for (;;) {
      const token = this.current;
      if (this.isPunct('?') && PRECEDENCE.TERNARY >= min) {
        this.advance();
        const then = this.parseBinary(0);
        this.expectPunct(':');
        const otherwise = this.parseBinary(PRECEDENCE.TERNARY);
        expr = this.located({ kind: 'Call', name: 'if', args: [expr, then, otherwise], params: null, distinct: false }, start);
        continue;
      }
      if ((this.isWord('OR') && PRECEDENCE.OR >= min) || (this.isWord('AND') && PRECEDENCE.AND >= min)) {
        const kind = token.upper === 'OR' ? 'Or' : 'And';
        this.advance();
        const right = this.parseBinary(PRECEDENCE[token.upper as 'OR' | 'AND'] + 1);
        // PostHog flattens nested ANDs and ORs, brackets or not.
        const exprs = [...(expr.kind === kind ? expr.exprs : [expr]), ...(right.kind === kind ? right.exprs : [right])];
        expr = this.located({ kind, exprs }, start);
        continue;
      }
      const negatedBetween = this.isWord('NOT') && this.isWord('BETWEEN', this.peek());
      if ((negatedBetween || this.isWord('BETWEEN')) && PRECEDENCE.BETWEEN >= min) {
        if (negatedBetween) this.advance();
        this.advance();
        const low = this.parseBinary(PRECEDENCE.BETWEEN + 1);
        this.expectWord('AND');
        const high = this.parseBinary(PRECEDENCE.BETWEEN + 1);
        expr = this.located({ kind: 'Between', expr, low, high, negated: negatedBetween }, start);
        continue;
      }
      if (this.isPunct('??') && PRECEDENCE.NULLISH >= min) {
        this.advance();
        const right = this.parseBinary(PRECEDENCE.NULLISH + 1);
        expr = this.located({ kind: 'Call', name: 'ifNull', args: [expr, right], params: null, distinct: false }, start);
        continue;
      }
      if (this.isWord('IS') && PRECEDENCE.IS_NULL >= min) {
        this.advance();
        const negated = this.acceptWord('NOT');
        this.expectWord('NULL');
        expr = this.located({ kind: 'CompareOperation', op: negated ? '!=' : '==', left: expr, right: { kind: 'Constant', value: null } }, start);
        continue;
      }
      if (PRECEDENCE.COMPARE >= min) {
        const op = this.comparisonOperator();
        if (op !== null) {
          const right = this.parseBinary(PRECEDENCE.COMPARE + 1);
          expr = this.located({ kind: 'CompareOperation', op, left: expr, right }, start);
          continue;
        }
      }
      if (token.type === 'punct' && (token.value === '+' || token.value === '-' || token.value === '||') && PRECEDENCE.ADD >= min) {
        this.advance();
        const right = this.parseBinary(PRECEDENCE.ADD + 1);
        if (token.value === '||') {
          // `a || b || c` is one concat(a, b, c).
          const args: Expr[] = expr.kind === 'Call' && expr.name === 'concat' && expr.params === null ? [...expr.args, right] : [expr, right];
          expr = this.located({ kind: 'Call', name: 'concat', args, params: null, distinct: false }, start);
        } else {
          expr = this.located({ kind: 'ArithmeticOperation', op: token.value as ArithmeticOp, left: expr, right }, start);
        }
        continue;
      }
      if (token.type === 'punct' && (token.value === '*' || token.value === '/' || token.value === '%') && PRECEDENCE.MUL >= min) {
        this.advance();
        const right = this.parseBinary(PRECEDENCE.MUL + 1);
        expr = this.located({ kind: 'ArithmeticOperation', op: token.value as ArithmeticOp, left: expr, right }, start);
        continue;
      }
      break;
    }
    this.leave();
    return expr;
  }

  /** The comparison operator at the current token (consumed), or null. */
  private comparisonOperator(): CompareOp | null {
    const token = this.current;
    if (token.type === 'punct') {
      const op = COMPARISON_PUNCT[token.value];
      if (op) this.advance();
      return op ?? null;
    }
    if (token.type !== 'identifier') return null;
    const next = this.peek();
    const negated = token.upper === 'NOT' && (this.isWord('IN', next) || this.isWord('LIKE', next) || this.isWord('ILIKE', next));
    const word = negated ? next.upper : token.upper;
    if (word !== 'IN' && word !== 'LIKE' && word !== 'ILIKE') return null;
    this.advance();
    if (negated) this.advance();
    if (word === 'IN') {
      if (this.acceptWord('COHORT')) return negated ? 'not in cohort' : 'in cohort';
      return negated ? 'not in' : 'in';
    }
    const lower = word.toLowerCase() as 'like' | 'ilike';
    return negated ? `not ${lower}` : lower;
  }

  /** A primary with its postfix operators, or a prefix NOT or minus applied to what binds tighter than it. */
  private parsePrefixed(): Expr {
    const start = this.current.start;
    if (this.isWord('NOT') && !this.isPunct('(', this.peek())) {
      this.advance();
      const expr = this.parseBinary(PRECEDENCE.NOT);
      return this.located({ kind: 'Not', expr }, start);
    }
    if (this.isPunct('-')) {
      this.advance();
      const literal = this.parseNumber();
      if (literal !== null && typeof literal.value === 'number' && !this.isPostfixStart()) {
        literal.value = -literal.value;
        return this.located(literal, start);
      }
      const operand = literal !== null ? this.parsePostfix(literal, literal.start ?? start) : this.parseBinary(PRECEDENCE.NEGATE);
      return this.located({ kind: 'ArithmeticOperation', op: '-', left: { kind: 'Constant', value: 0 }, right: operand }, start);
    }
    return this.parsePostfix(this.parsePrimary(), start);
  }

  private isPostfixStart(): boolean {
    return this.isPunct('[') || this.isPunct('?.') || this.isPunct('::') || (this.isPunct('.') && this.peek().type !== 'eof');
  }

  private parsePostfix(base: Expr, start: number): Expr {
    let expr = base;
    const exprStart = base.start ?? start;
    for (;;) {
      if (this.isPunct('[')) {
        this.advance();
        const property = this.parseExpr();
        this.expectPunct(']');
        expr = this.located({ kind: 'ArrayAccess', array: expr, property, nullish: false }, exprStart);
      } else if (this.isPunct('?.')) {
        this.advance();
        if (this.acceptPunct('[')) {
          const property = this.parseExpr();
          this.expectPunct(']');
          expr = this.located({ kind: 'ArrayAccess', array: expr, property, nullish: true }, exprStart);
        } else if (this.current.type === 'number') {
          const index = Number(this.advance().value);
          expr = this.located({ kind: 'TupleAccess', tuple: expr, index, nullish: true }, exprStart);
        } else {
          const name = this.identifier();
          expr = this.located({ kind: 'ArrayAccess', array: expr, property: { kind: 'Constant', value: name }, nullish: true }, exprStart);
        }
      } else if (this.isPunct('.')) {
        const next = this.peek();
        if (next.type === 'number') {
          this.advance();
          this.advance();
          expr = this.located({ kind: 'TupleAccess', tuple: expr, index: Number(next.value), nullish: false }, exprStart);
        } else if (next.type === 'identifier' || next.type === 'quotedIdentifier') {
          this.advance();
          const name = this.advance().value;
          if (expr.kind === 'Field' && expr.chain[expr.chain.length - 1] !== '*') {
            expr = this.located({ kind: 'Field', chain: [...expr.chain, name] }, exprStart);
          } else {
            expr = this.located({ kind: 'ArrayAccess', array: expr, property: { kind: 'Constant', value: name }, nullish: false }, exprStart);
          }
        } else if (this.isPunct('*', next) && expr.kind === 'Field') {
          this.advance();
          this.advance();
          expr = this.located({ kind: 'Field', chain: [...expr.chain, '*'] }, exprStart);
        } else {
          return expr;
        }
      } else if (this.isPunct('::')) {
        this.advance();
        const typeName = this.identifier('a type');
        expr = this.located({ kind: 'TypeCast', expr, typeName: typeName.toLowerCase() }, exprStart);
      } else if (this.isPunct('(') && expr.kind !== 'Constant') {
        this.advance();
        const args = this.isPunct(')') ? [] : this.parseExprList();
        this.expectPunct(')');
        expr = this.located({ kind: 'ExprCall', expr, args }, exprStart);
      } else {
        return expr;
      }
    }
  }

  /** A number literal at the current token (consumed), or null. */
  private parseNumber(): Constant | null {
    const token = this.current;
    const start = token.start;
    if (token.type === 'number') {
      this.advance();
      if (this.isPunct('.') && token.end === this.current.start) {
        const fraction = this.peek();
        if (fraction.type === 'number' && fraction.start === this.current.end) {
          this.advance();
          this.advance();
          return this.located({ kind: 'Constant', value: Number(`${token.value}.${fraction.value}`) }, start);
        }
        if (fraction.type !== 'identifier' && fraction.type !== 'quotedIdentifier') {
          this.advance();
          return this.located({ kind: 'Constant', value: Number(token.value) }, start);
        }
      }
      return this.located({ kind: 'Constant', value: Number(token.value.replace(/^0+(?=\d)/, '')) }, start);
    }
    if (token.type === 'float') {
      this.advance();
      return this.located({ kind: 'Constant', value: Number(token.value) }, start);
    }
    if (token.type === 'hex') {
      this.advance();
      return this.located({ kind: 'Constant', value: Number.parseInt(token.value.slice(2), 16) }, start);
    }
    if (this.isPunct('.') && this.peek().type === 'number') {
      this.advance();
      const fraction = this.advance();
      return this.located({ kind: 'Constant', value: Number(`0.${fraction.value}`) }, start);
    }
    if (this.isWord('INF') || this.isWord('INFINITY')) {
      this.advance();
      return this.located({ kind: 'Constant', value: Infinity }, start);
    }
    if (this.isWord('NAN')) {
      this.advance();
      return this.located({ kind: 'Constant', value: NaN }, start);
    }
    return null;
  }

  private parsePlaceholder(): Placeholder {
    const start = this.expectPunct('{').start;
    const expr = this.parseExpr();
    this.expectPunct('}');
    if (expr.kind !== 'Field') {
      throw new HogQLSyntaxError('Placeholders such as {name} must hold a name', start, this.tokens[this.position - 1]!.end);
    }
    return this.located({ kind: 'Placeholder', chain: expr.chain }, start);
  }

  private parsePrimary(): Expr {
    const token = this.current;
    const start = token.start;
    const number = this.parseNumber();
    if (number !== null) return number;
    if (token.type === 'string') {
      this.advance();
      return this.located({ kind: 'Constant', value: token.value }, start);
    }
    if (token.type === 'punct') {
      switch (token.value) {
        case '(':
          return this.parseParenthesised();
        case '[': {
          this.advance();
          const exprs = this.isPunct(']') ? [] : this.parseExprList();
          this.expectPunct(']');
          return this.located({ kind: 'Array', exprs }, start);
        }
        case '{':
          return this.parseBrace();
        case '*':
          this.advance();
          return this.located({ kind: 'Field', chain: ['*'] }, start);
        case '+':
          this.advance();
          return this.parsePrefixed();
        case '<':
          throw new HogQLSyntaxError("HogQLX tags are not supported in Tally's HogQL", token.start, token.end);
      }
      return this.fail('an expression');
    }
    if (token.type === 'quotedIdentifier') return this.parseIdentifierExpr();
    if (token.type !== 'identifier') return this.fail('an expression');
    switch (token.upper) {
      case 'NULL':
        this.advance();
        return this.located({ kind: 'Constant', value: null }, start);
      case 'TRUE':
        this.advance();
        return this.located({ kind: 'Constant', value: true }, start);
      case 'FALSE':
        this.advance();
        return this.located({ kind: 'Constant', value: false }, start);
      case 'CASE':
        return this.parseCase();
      case 'INTERVAL':
        return this.parseInterval();
      case 'CAST':
        if (this.isPunct('(', this.peek())) return this.parseCast();
        break;
      case 'TRIM':
        if (this.isPunct('(', this.peek()) && ['BOTH', 'LEADING', 'TRAILING'].includes(this.peek(2).upper) && this.peek(3).type === 'string') {
          return this.parseTrim();
        }
        break;
      case 'DATE':
      case 'TIMESTAMP':
        if (this.peek().type === 'string') throw new HogQLSyntaxError(`Unsupported: ${token.upper} literals`, token.start, this.peek().end);
        break;
      case 'NOT':
        if (!this.isPunct('(', this.peek())) return this.parsePrefixed();
        break;
    }
    if (CLAUSE_WORDS.has(token.upper)) return this.fail('an expression');
    return this.parseIdentifierExpr();
  }

  private parseParenthesised(): Expr {
    const start = this.advance().start;
    if (this.isWord('SELECT') || this.isWord('WITH')) {
      this.enter();
      const query = this.parseSelectSet();
      this.leave();
      this.expectPunct(')');
      return query;
    }
    if (this.isPunct(')')) {
      this.advance();
      if (this.isPunct('->')) return this.parseLambdaBody([], start);
      return this.fail("'->'");
    }
    // `(a, b) -> …`
    if (this.isLambdaParams()) {
      const args: string[] = [];
      do {
        if (this.isPunct(')')) break;
        args.push(this.identifier());
      } while (this.acceptPunct(','));
      this.expectPunct(')');
      return this.parseLambdaBody(args, start);
    }
    this.enter();
    const first = this.parseExpr();
    if (this.isPunct(')')) {
      this.advance();
      this.leave();
      // Subqueries in brackets may continue as a set: `(SELECT 1) UNION ALL (SELECT 2)` is handled by the caller.
      return first;
    }
    const exprs = [first];
    while (this.acceptPunct(',')) {
      if (this.isPunct(')')) break;
      exprs.push(this.parseExpr());
    }
    this.expectPunct(')');
    this.leave();
    return this.located({ kind: 'Tuple', exprs }, start);
  }

  /** At `a, b) ->` or `a) ->` after an opening bracket. */
  private isLambdaParams(): boolean {
    let offset = 0;
    for (;;) {
      const token = this.peek(offset);
      if (token.type !== 'identifier' && token.type !== 'quotedIdentifier') return false;
      const next = this.peek(offset + 1);
      if (this.isPunct(')', next)) return this.isPunct('->', this.peek(offset + 2));
      if (!this.isPunct(',', next)) return false;
      offset += 2;
      if (this.isPunct(')', this.peek(offset))) return this.isPunct('->', this.peek(offset + 1));
    }
  }

  private parseLambdaBody(args: string[], start: number): Expr {
    this.expectPunct('->');
    if (this.isPunct('{') && this.isLambdaBlock())
      throw new HogQLSyntaxError('Hog blocks are not supported in HogQL queries', this.current.start, this.current.end);
    this.enter();
    const expr = this.parseExpr();
    this.leave();
    return this.located({ kind: 'Lambda', args, expr }, start);
  }

  private isLambdaBlock(): boolean {
    const next = this.peek();
    return this.isWord('LET', next) || this.isWord('RETURN', next);
  }

  private parseBrace(): Expr {
    const start = this.current.start;
    if (this.isPunct('}', this.peek())) {
      this.advance();
      this.advance();
      return this.located({ kind: 'Dict', items: [] }, start);
    }
    this.advance();
    const first = this.parseExpr();
    if (this.acceptPunct('}')) {
      if (first.kind !== 'Field') throw new HogQLSyntaxError('Placeholders such as {name} must hold a name', start, this.tokens[this.position - 1]!.end);
      return this.located({ kind: 'Placeholder', chain: first.chain }, start);
    }
    const items: [Expr, Expr][] = [];
    this.expectPunct(':');
    items.push([first, this.parseExpr()]);
    while (this.acceptPunct(',')) {
      if (this.isPunct('}')) break;
      const key = this.parseExpr();
      this.expectPunct(':');
      items.push([key, this.parseExpr()]);
    }
    this.expectPunct('}');
    return this.located({ kind: 'Dict', items }, start);
  }

  private parseCase(): Expr {
    const start = this.advance().start;
    const subject = this.isWord('WHEN') ? null : this.parseExpr();
    const conditions: Expr[] = [];
    const results: Expr[] = [];
    while (this.acceptWord('WHEN')) {
      conditions.push(this.parseExpr());
      this.expectWord('THEN');
      results.push(this.parseExpr());
    }
    if (conditions.length === 0) this.fail('WHEN');
    const otherwise: Expr = this.acceptWord('ELSE') ? this.parseExpr() : { kind: 'Constant', value: null };
    this.expectWord('END');
    if (subject !== null) {
      const args = [subject, ...conditions.flatMap((condition, index) => [condition, results[index]!]), otherwise];
      return this.located({ kind: 'Call', name: '_caseWithExpression', args, params: null, distinct: false }, start);
    }
    if (conditions.length === 1) {
      return this.located({ kind: 'Call', name: 'if', args: [conditions[0]!, results[0]!, otherwise], params: null, distinct: false }, start);
    }
    const args = [...conditions.flatMap((condition, index) => [condition, results[index]!]), otherwise];
    return this.located({ kind: 'Call', name: 'multiIf', args, params: null, distinct: false }, start);
  }

  private parseInterval(): Expr {
    const start = this.advance().start;
    if (this.current.type === 'string') {
      const token = this.advance();
      const match = /^\s*(-?\d+)\s+(\w+)\s*$/.exec(token.value);
      const unit = match ? INTERVAL_UNITS[match[2]!.toUpperCase().replace(/S$/, '')] : undefined;
      if (!match || !unit) throw new HogQLSyntaxError(`Unsupported interval: '${token.value}'`, token.start, token.end);
      return this.located(
        { kind: 'Call', name: `toInterval${unit}`, args: [{ kind: 'Constant', value: Number(match[1]) }], params: null, distinct: false },
        start,
      );
    }
    const amount = this.parseBinary(PRECEDENCE.ADD);
    const unitToken = this.current;
    const unit = unitToken.type === 'identifier' ? INTERVAL_UNITS[unitToken.upper] : undefined;
    if (!unit) this.fail('SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR');
    this.advance();
    return this.located({ kind: 'Call', name: `toInterval${unit}`, args: [amount], params: null, distinct: false }, start);
  }

  private parseCast(): Expr {
    const start = this.advance().start;
    this.expectPunct('(');
    const expr = this.parseBinary(0);
    this.expectWord('AS');
    const typeName = this.identifier('a type');
    if (this.isPunct('(')) throw new HogQLSyntaxError('Unsupported: parameterised types in CAST', this.current.start, this.current.end);
    this.expectPunct(')');
    return this.located({ kind: 'TypeCast', expr, typeName: typeName.toLowerCase() }, start);
  }

  private parseTrim(): Expr {
    const start = this.advance().start;
    this.expectPunct('(');
    const side = this.advance().upper;
    const characters = this.advance().value;
    this.expectWord('FROM');
    const expr = this.parseExpr();
    this.expectPunct(')');
    const name = side === 'LEADING' ? 'trimLeft' : side === 'TRAILING' ? 'trimRight' : 'trim';
    return this.located({ kind: 'Call', name, args: [expr, { kind: 'Constant', value: characters }], params: null, distinct: false }, start);
  }

  /** A name: a function call (`f(x)`, `quantile(0.5)(x)`, `f(x) OVER …`), a lambda (`x -> …`), or a field. */
  private parseIdentifierExpr(): Expr {
    const token = this.advance();
    const start = token.start;
    const name = token.value;
    if (this.isPunct('->')) return this.parseLambdaBody([name], start);
    if (this.isPunct(',') && this.isBareLambda()) {
      const args = [name];
      while (this.acceptPunct(',')) args.push(this.identifier());
      return this.parseLambdaBody(args, start);
    }
    if (!this.isPunct('(')) return this.located({ kind: 'Field', chain: [name] }, start);
    this.advance();
    const first = this.parseCallArguments();
    let args: Expr[] = first.args;
    let distinct = first.distinct;
    let params: Expr[] | null = null;
    if (this.isPunct('(')) {
      if (distinct) this.fail("')'");
      this.advance();
      params = args;
      const second = this.parseCallArguments();
      args = second.args;
      distinct = second.distinct;
    }
    if (this.isWord('OVER')) {
      this.advance();
      if (this.acceptPunct('(')) {
        const overExpr = this.parseWindowExpr();
        this.expectPunct(')');
        return this.located({ kind: 'WindowFunction', name, exprs: params ?? args, args: params ? args : null, overExpr, overIdentifier: null }, start);
      }
      const overIdentifier = this.identifier('a window');
      return this.located({ kind: 'WindowFunction', name, exprs: params ?? args, args: params ? args : null, overExpr: null, overIdentifier }, start);
    }
    let filterExpr: Expr | null = null;
    if (this.isWord('FILTER') && this.isPunct('(', this.peek()) && this.isWord('WHERE', this.peek(2))) {
      this.advance();
      this.advance();
      this.advance();
      filterExpr = this.parseExpr();
      this.expectPunct(')');
    }
    return this.located({ kind: 'Call', name, args, params, distinct, filterExpr }, start);
  }

  /** At `, b, c ->` after a name: a lambda of several arguments without brackets. */
  private isBareLambda(): boolean {
    let offset = 0;
    for (;;) {
      if (!this.isPunct(',', this.peek(offset))) return this.isPunct('->', this.peek(offset));
      const name = this.peek(offset + 1);
      if (name.type !== 'identifier' && name.type !== 'quotedIdentifier') return false;
      offset += 2;
    }
  }

  /** After `(`: the arguments and the closing `)`. */
  private parseCallArguments(): { args: Expr[]; distinct: boolean } {
    const distinct = this.acceptWord('DISTINCT');
    if (this.acceptPunct(')')) return { args: [], distinct };
    const args = this.parseExprList();
    this.expectPunct(')');
    return { args, distinct };
  }
}

function guarded<T>(text: string, run: (parser: Parser) => T): T {
  const parser = new Parser(tokenize(text));
  try {
    return run(parser);
  } catch (error) {
    if (error instanceof RangeError) throw new HogQLSyntaxError('Query is nested too deeply', 0, text.length);
    throw error;
  }
}

/** Parses a HogQL SELECT (or a set of them joined with UNION ALL …). */
export function parseSelect(text: string): SelectQuery | SelectSetQuery {
  return guarded(text, (parser) => {
    const query = parser.parseSelectSet();
    parser.expectEnd();
    return query;
  });
}

/** Parses one HogQL expression, as EventsQuery's `select` and `where` hold them. */
export function parseExpr(text: string): Expr {
  return guarded(text, (parser) => {
    const expr = parser.parseExpr();
    parser.expectEnd();
    return expr;
  });
}

/**
 * Parses an ORDER BY item, as EventsQuery's `orderBy` holds them. Like PostHog's, it ignores
 * whatever follows a complete item (`timestamp sideways` is `timestamp ASC`).
 */
export function parseOrderExpr(text: string): OrderExpr {
  const tokens = tokenize(text);
  try {
    return new Parser(tokens).parseOrderExpr();
  } catch (error) {
    if (!(error instanceof HogQLSyntaxError)) throw error;
    // An incomplete tail (`timestamp +`) is dropped: the longest complete item before it counts.
    for (let end = tokens.findIndex((token) => token.start >= (error.start ?? 0)); end > 0; end--) {
      const head = [...tokens.slice(0, end), { ...tokens[tokens.length - 1]!, start: tokens[end]!.start, end: tokens[end]!.start }];
      try {
        return new Parser(head).parseOrderExpr();
      } catch {
        if (tokens.length - end > 2) break;
      }
    }
    throw error;
  }
}
