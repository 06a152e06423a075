import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HogQLSyntaxError } from '../../src/hogql/errors.js';
import { printHogQL } from '../../src/hogql/hogql-text.js';
import { parseExpr, parseOrderExpr, parseSelect } from '../../src/hogql/parser.js';

function expr(text: string): string {
  return printHogQL(parseExpr(text));
}

function select(text: string): string {
  return printHogQL(parseSelect(text));
}

function syntaxError(run: () => unknown, message: string | RegExp, start?: number, end?: number): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof HogQLSyntaxError, String(error));
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    if (start !== undefined) assert.equal(error.start, start);
    if (end !== undefined) assert.equal(error.end, end);
    return true;
  });
}

describe("HogQL parser: precedence (PostHog's order)", () => {
  const cases: [string, string][] = [
    ['1 + 2 * 3 - 4', 'minus(plus(1, multiply(2, 3)), 4)'],
    ['-a * b', 'multiply(minus(0, a), b)'],
    ['- 1', '-1'],
    ['a - -1', 'minus(a, -1)'],
    ['a % b / c', 'divide(modulo(a, b), c)'],
    ['a || b + c', 'plus(concat(a, b), c)'],
    ["'a' || 'b' || 'c'", "concat('a', 'b', 'c')"],
    ['a < b < c', 'less(less(a, b), c)'],
    ['a = b is null', 'equals(equals(a, b), NULL)'],
    ['a ?? b = c', 'ifNull(a, equals(b, c))'],
    ['a ?? b ?? c', 'ifNull(ifNull(a, b), c)'],
    ['not a = b', 'not(equals(a, b))'],
    ['not a and b', 'and(not(a), b)'],
    ['a = 1 or b = 2 and c = 3', 'or(equals(a, 1), and(equals(b, 2), equals(c, 3)))'],
    ['a or b between 1 and 2', 'or(a, b BETWEEN 1 AND 2)'],
    ['a between b and c and d', 'and(a BETWEEN b AND c, d)'],
    ['a = b between 1 and 2', 'equals(a, b) BETWEEN 1 AND 2'],
    ['not a between 1 and 2', 'not(a BETWEEN 1 AND 2)'],
    ['a not between 1 and 2', 'a NOT BETWEEN 1 AND 2'],
    ['a ? b : c ? d : e', 'if(a, b, if(c, d, e))'],
    ['a or b ? c : d', 'if(or(a, b), c, d)'],
    ['a = not b', 'equals(a, not(b))'],
    ['not a ?? b', 'not(ifNull(a, b))'],
    ['a like b or c', 'or(like(a, b), c)'],
    ['a not ilike b', 'notILike(a, b)'],
    ['a ~ b', 'match(a, b)'],
    ['a !~* b', 'notIMatch(a, b)'],
    ['a <> b', 'notEquals(a, b)'],
    ['a not in (1, 2)', 'notIn(a, tuple(1, 2))'],
    ['a is not null and b', 'and(notEquals(a, NULL), b)'],
    ['1 + 2 as b', 'plus(1, 2) AS b'],
  ];
  for (const [input, output] of cases) {
    test(`${input}  →  ${output}`, () => assert.equal(expr(input), output));
  }
});

describe('HogQL parser: expressions', () => {
  const cases: [string, string][] = [
    ['properties.$browser', 'properties.$browser'],
    ["properties['$x']", "properties['$x']"],
    ['a.b[1].c', "a.b[1]['c']"],
    ['x.1.2', 'x.1.2'],
    ['a?.b', "a?.['b']"],
    ['e.*', 'e.*'],
    ['count(*)', 'count(*)'],
    ['count(distinct a, b)', 'count(DISTINCT a, b)'],
    ['quantile(0.5)(x)', 'quantile(0.5)(x)'],
    ["count() filter (where event = 'a')", "count() FILTER (WHERE equals(event, 'a'))"],
    ['f(x)(y)', 'f(x)(y)'],
    ['a.b(1)', 'a.b(1)'],
    ['x -> x + 1', '(x) -> plus(x, 1)'],
    ['(a, b) -> a + b', '(a, b) -> plus(a, b)'],
    ['arrayMap(x -> x * 2, arr)', 'arrayMap((x) -> multiply(x, 2), arr)'],
    ['[1, 2, 3]', '[1, 2, 3]'],
    ['(1, 2)', 'tuple(1, 2)'],
    ['(1,)', 'tuple(1)'],
    ['(1)', '1'],
    ['{}', '{}'],
    ["{'a': 1}", "{'a': 1}"],
    ['{name}', '{name}'],
    ['interval 1 day', 'toIntervalDay(1)'],
    ["interval '3 months'", 'toIntervalMonth(3)'],
    ['cast(a as String)', 'CAST(a AS string)'],
    ['a::Int64', 'CAST(a AS int64)'],
    ['case when a then b end', 'if(a, b, NULL)'],
    ['case when a then b when c then d else e end', 'multiIf(a, b, c, d, e)'],
    ['case a when 1 then 2 else 3 end', '_caseWithExpression(a, 1, 2, 3)'],
    ["trim(leading 'x' from a)", "trimLeft(a, 'x')"],
    [
      'row_number() over (partition by a order by b desc rows between unbounded preceding and current row)',
      'row_number() OVER (PARTITION BY a ORDER BY b DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)',
    ],
    ['sum(x) over w', 'sum(x) OVER w'],
    ['0x1F', '31'],
    ['1e3', '1000'],
    ['1.5', '1.5'],
    ['.5', '0.5'],
    ['inf', 'Inf'],
    ['-inf', '-Inf'],
    ['nan', 'NaN'],
    ['NULL', 'NULL'],
    ['true and FALSE', 'and(true, false)'],
    ['`a b`.c', '`a b`.c'],
    ['a in cohort 3', 'inCohort(a, 3)'],
    ['(select 1)', 'SELECT 1'],
  ];
  for (const [input, output] of cases) {
    test(`${input}  →  ${output}`, () => assert.equal(expr(input), output));
  }
});

describe('HogQL parser: every construct of a SELECT', () => {
  const cases: [string, string][] = [
    ['select 1', 'SELECT 1'],
    ['SELECT DISTINCT event FROM events', 'SELECT DISTINCT event FROM events'],
    ['with a as (select 1 as x), 2 as y select x, y from a', 'WITH a AS (SELECT 1 AS x), 2 AS y SELECT x, y FROM a'],
    [
      'select e.event from events as e left join persons p on p.id = e.person_id inner join groups g on 1 cross join numbers(2) n, person_distinct_ids pdi',
      'SELECT e.event FROM events AS e LEFT JOIN persons AS p ON equals(p.id, e.person_id) INNER JOIN groups AS g ON 1 CROSS JOIN numbers(2) AS n CROSS JOIN person_distinct_ids AS pdi',
    ],
    ['select 1 from a any left join b using x', 'SELECT 1 FROM a LEFT ANY JOIN b USING (x)'],
    ['select 1 from a asof join b on 1', 'SELECT 1 FROM a ASOF INNER JOIN b ON 1'],
    ['select 1 from a full outer join b on 1 right semi join c on 1', 'SELECT 1 FROM a FULL OUTER JOIN b ON 1 RIGHT SEMI JOIN c ON 1'],
    ['select 1 from (select 1) t', 'SELECT 1 FROM (SELECT 1) AS t'],
    ['select 1 from events e final', 'SELECT 1 FROM events AS e FINAL'],
    ['select x from events array join [1, 2] as x', 'SELECT x FROM events ARRAY JOIN [1, 2] AS x'],
    ['select 1 from events prewhere a where b', 'SELECT 1 FROM events PREWHERE a WHERE b'],
    ['select event, count() from events group by event having count() > 1', 'SELECT event, count() FROM events GROUP BY event HAVING greater(count(), 1)'],
    ['select a from t window w as (partition by a)', 'SELECT a FROM t WINDOW w AS (PARTITION BY a)'],
    ['select a from t order by a desc nulls first, b', 'SELECT a FROM t ORDER BY a DESC, b ASC'],
    ['select 1 from t limit 10 offset 5', 'SELECT 1 FROM t LIMIT 10 OFFSET 5'],
    ['select 1 from t limit 10, 5', 'SELECT 1 FROM t LIMIT 10 OFFSET 5'],
    ['select 1 from t offset 5', 'SELECT 1 FROM t OFFSET 5'],
    ['select 1 from t limit 1 by a', 'SELECT 1 FROM t LIMIT 1 BY a'],
    ['select 1 from t limit 1 by a limit 5', 'SELECT 1 FROM t LIMIT 1 BY a LIMIT 5'],
    ['select 1 from t limit 5 with ties', 'SELECT 1 FROM t LIMIT 5 WITH TIES'],
    ['select 1 union all select 2 union distinct select 3', 'SELECT 1 UNION ALL SELECT 2 UNION DISTINCT SELECT 3'],
    ['select 1 union select 2', 'SELECT 1 UNION DISTINCT SELECT 2'],
    ['select count() c, event e2 from events', 'SELECT count() AS c, event AS e2 FROM events'],
    ['(select 1) union all (select 2)', 'SELECT 1 UNION ALL SELECT 2'],
    ['select 1 intersect select 2 except select 3', 'SELECT 1 INTERSECT SELECT 2 EXCEPT SELECT 3'],
    ['select 1;', 'SELECT 1'],
    ['select 1 from events format csv where 1', 'SELECT 1 FROM events AS csv WHERE 1'],
    ['select 1 from events e FORMAT JSON', 'SELECT 1 FROM events AS JSON'],
    ['select 1 from {t}', 'SELECT 1 FROM {t}'],
    ['select 1 from db.t', 'SELECT 1 FROM db.t'],
  ];
  for (const [input, output] of cases) {
    test(`${input}  →  ${output}`, () => assert.equal(select(input), output));
  }

  test('the top-level set keeps its operators in order', () => {
    const parsed = parseSelect('select 1 union all select 2 intersect select 3');
    assert.equal(parsed.kind, 'SelectSetQuery');
    if (parsed.kind !== 'SelectSetQuery') return;
    assert.deepEqual(
      parsed.subsequent.map((item) => item.operator),
      ['UNION ALL', 'INTERSECT'],
    );
  });

  test('nodes carry their positions', () => {
    const parsed = parseExpr('1 + no_field');
    assert.equal(parsed.kind, 'ArithmeticOperation');
    if (parsed.kind !== 'ArithmeticOperation') return;
    assert.deepEqual([parsed.right.start, parsed.right.end], [4, 12]);
  });

  test("ORDER BY items ignore what follows a complete item, as PostHog's do", () => {
    assert.equal(printHogQL(parseOrderExpr('timestamp sideways').expr), 'timestamp');
    assert.equal(parseOrderExpr('timestamp desc').order, 'DESC');
    assert.equal(parseOrderExpr('timestamp +').order, 'ASC');
    syntaxError(() => parseOrderExpr('(timestamp'), 'Unexpected end of query', 10, 10);
  });
});

describe('HogQL parser: errors', () => {
  test('mismatched and extraneous input name the token and its place', () => {
    syntaxError(() => parseSelect('timestamp'), "mismatched input 'timestamp' expecting {SELECT, WITH, '('}", 0, 9);
    syntaxError(() => parseExpr('select 1'), "mismatched input 'select' expecting an expression", 0, 6);
    syntaxError(() => parseExpr('a b'), "extraneous input 'b' expecting <EOF>", 2, 3);
    syntaxError(() => parseSelect('select 1 from events where'), 'Unexpected end of query', 26, 26);
  });

  test('statements other than one SELECT are syntax errors', () => {
    syntaxError(() => parseSelect('select 1; select 2'), "extraneous input 'select' expecting <EOF>", 10, 16);
    syntaxError(() => parseSelect('drop table events'), "mismatched input 'drop' expecting {SELECT, WITH, '('}", 0, 4);
    syntaxError(() => parseSelect('insert into events values (1)'), /^mismatched input 'insert'/);
    syntaxError(() => parseSelect("select 1 into outfile '/tmp/x'"), "extraneous input 'outfile' expecting <EOF>");
    syntaxError(() => parseSelect('select 1 from events where 1 format JSON'), "extraneous input 'format' expecting <EOF>");
    syntaxError(() => parseSelect('select 1 format JSON'), "extraneous input 'JSON' expecting <EOF>");
  });

  test('SETTINGS is a syntax error, not an internal error', () => {
    syntaxError(() => parseSelect('select 1 settings max_threads = 1'), 'Unsupported: SETTINGS clause: HogQL queries cannot change settings', 9, 17);
  });

  test('reserved aliases', () => {
    syntaxError(() => parseSelect('select 1 as team_id'), `"team_id" cannot be an alias or identifier, as it's a reserved keyword`, 12, 19);
  });

  test('ARRAY JOIN needs aliases', () => {
    syntaxError(() => parseSelect('select 1 from events array join [1]'), 'ARRAY JOIN arrays must have an alias');
  });

  test('deep prefix chains answer a syntax error, not a crash', () => {
    syntaxError(() => parseExpr(`${'NOT '.repeat(5000)}1`), 'Query is nested too deeply');
    syntaxError(() => parseExpr(`${'- '.repeat(5000)}a`), 'Query is nested too deeply');
    assert.equal(expr(`${'NOT '.repeat(100)}1`).length, 'not('.length * 100 + 1 + 100);
  });

  test('legal long input keeps working: a 300-term sum, 10 nested brackets, a 1,000-item IN list', () => {
    assert.match(expr(Array.from({ length: 300 }, () => '1').join(' + ')), /^plus\(plus\(/);
    assert.equal(expr(`${'('.repeat(10)}1${')'.repeat(10)}`), '1');
    const list = Array.from({ length: 1000 }, (_, index) => `'id${index}'`).join(', ');
    const parsed = parseSelect(`select count() from events where distinct_id in (${list})`);
    assert.equal(parsed.kind, 'SelectQuery');
  });
});
