import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, validationError } from '../support/definitions.js';
import { TallyServer } from '../support/tally.js';

/**
 * Formula input at the trend endpoint: length, nesting and characters outside the formula
 * grammar are 400s on `formula`, never a 500 and never silently dropped. Project 1 holds three
 * `view` and one `buy` event on 1 January 2020 and one `view` on the 2nd.
 */
const RANGE = { date_from: '2020-01-01', date_to: '2020-01-02' };
const SERIES = {
  events: [
    { id: 'view', order: 0 },
    { id: 'buy', order: 1 },
  ],
  ...RANGE,
};
const ALPHABET_HINT = 'which is not part of a formula: use series letters, numbers, + - * / and parentheses.';

describe('trend formula input', () => {
  let server: TallyServer;

  before(async () => {
    server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: 'phc_formula_input' });
    await server.start();
    await capture(server, 'phc_formula_input', [
      { event: 'view', distinct_id: 'u1', timestamp: '2020-01-01T10:00:00Z' },
      { event: 'view', distinct_id: 'u1', timestamp: '2020-01-01T11:00:00Z' },
      { event: 'view', distinct_id: 'u2', timestamp: '2020-01-01T12:00:00Z' },
      { event: 'buy', distinct_id: 'u2', timestamp: '2020-01-01T12:05:00Z' },
      { event: 'view', distinct_id: 'u2', timestamp: '2020-01-02T09:00:00Z' },
    ]);
  });
  after(() => server.dispose());

  const trend = (body: Record<string, unknown>) => server.post('/api/projects/1/insights/trend/', body);
  const trendGet = (body: Record<string, unknown>) => {
    const query = new URLSearchParams(Object.entries(body).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
    return server.get(`/api/projects/1/insights/trend/?${query}`);
  };

  test('a 60 KB formula is a 400 on formula, not a stack overflow', async () => {
    const response = await trend({ ...SERIES, formula: `A${'+A'.repeat(30_000)}` });
    assert.equal(response.status, 400, response.text);
    assert.deepEqual(response.body, validationError('formula', 'Formula is 60001 characters long; the most a formula may have is 4096.'));
  });

  test('the longest formula allowed works, also in a GET query string', async () => {
    const formula = `A${'+A'.repeat(2047)} `;
    assert.equal(formula.length, 4096);
    for (const response of [await trend({ ...SERIES, formula }), await trendGet({ ...SERIES, formula })]) {
      assert.equal(response.status, 200, response.text.slice(0, 300));
      assert.equal(response.body.result.length, 1);
      const [item] = response.body.result;
      assert.deepEqual([item.data, item.count, item.label], [[3 * 2048, 1 * 2048], 4 * 2048, `Formula (${formula})`]);
    }
    const mixed = await trend({ ...SERIES, formula: `A${'*B/B-B+B'.repeat(500)}` });
    assert.equal(mixed.status, 200, mixed.text.slice(0, 300));
    // On the 2nd there is no buy: A*0/0 is NaN, shown as 0 as PostHog does.
    assert.deepEqual(mixed.body.result[0].data, [3, 0]);
  });

  test('nesting deeper than 64 parentheses or signs is a 400', async () => {
    const nested = await trend({ ...SERIES, formula: `${'('.repeat(64)}A - B${')'.repeat(64)}` });
    assert.equal(nested.status, 200, nested.text);
    assert.deepEqual(nested.body.result[0].data, [2, 1]);
    for (const formula of [`${'('.repeat(65)}A${')'.repeat(65)}`, `${'('.repeat(2000)}A${')'.repeat(2000)}`, `${'-'.repeat(3000)}A`]) {
      const response = await trend({ ...SERIES, formula });
      assert.equal(response.status, 400, formula.slice(0, 20));
      assert.deepEqual(response.body, validationError('formula', 'Formula nests parentheses and signs more than 64 deep.'));
    }
  });

  test('quotes, backticks and other characters outside the grammar are a 400, not dropped', async () => {
    const cases: Array<[string, string]> = [
      ["'A'", `Formula "'A'" has "'" (U+0027) at character 1, ${ALPHABET_HINT}`],
      ['A + `B`', `Formula "A + \`B\`" has "\`" (U+0060) at character 5, ${ALPHABET_HINT}`],
      ['"A" + B', `Formula ""A" + B" has """ (U+0022) at character 1, ${ALPHABET_HINT}`],
      ['A + B;', `Formula "A + B;" has ";" (U+003B) at character 6, ${ALPHABET_HINT}`],
      ['A ^ 2', `Formula "A ^ 2" has "^" (U+005E) at character 3, ${ALPHABET_HINT}`],
      ["'", `Formula "'" has "'" (U+0027) at character 1, ${ALPHABET_HINT}`],
    ];
    for (const [formula, detail] of cases) {
      for (const response of [await trend({ ...SERIES, formula }), await trendGet({ ...SERIES, formula })]) {
        assert.equal(response.status, 400, formula);
        assert.deepEqual(response.body, validationError('formula', detail));
      }
    }
  });

  test('a formula that is not text is a 400, not ignored', async () => {
    for (const formula of [5, ['A'], { A: 1 }, true]) {
      const response = await trend({ ...SERIES, formula });
      assert.equal(response.status, 400, JSON.stringify(formula));
      assert.deepEqual(response.body, validationError('formula', 'A formula is text, such as "A + B".'));
    }
  });

  test('valid formulas keep their text in the label; whitespace of any kind separates', async () => {
    const response = await trend({ ...SERIES, formula: 'A\t-\nB' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.result.map((item: any) => [item.label, item.data]),
      [['Formula (A\t-\nB)', [2, 1]]],
    );
    const blank = await trend({ ...SERIES, formula: '   ' });
    assert.deepEqual(
      blank.body.result.map((item: any) => [item.label, item.data]),
      [
        ['view', [3, 1]],
        ['buy', [1, 0]],
      ],
    );
  });
});
