import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { parseProperties } from '../../src/query/property-filter-model.js';
import { compilePropertyFilters, rawPropertyValue, type PropertyColumns } from '../../src/query/property-filters.js';
import { noCohorts } from '../../src/query/resolvers.js';
import { SqlParams } from '../../src/query/sql-params.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';

/**
 * The compiler's SQL is run by real ClickHouse (chDB) against a small table, so each operator is
 * checked for what it matches, not for how its SQL looks.
 */
const ROWS = [
  {
    id: 1,
    properties: { browser: 'Chrome', n: 80, s: '80', flag: true, d: '2020-01-02T10:00:00Z' },
    person: { email: 'ann@example.com' },
    chain: 'a.btn.primary:attr__href="/signup"href="/signup"nth-child="1"nth-of-type="1"text="Signup";div.header:nth-child="1"',
  },
  { id: 2, properties: { browser: 'Safari', n: '12.5', s: ' 12 ' }, person: { email: 'bob@test.com' }, chain: 'button:text="Go"' },
  { id: 3, properties: { browser: null }, person: {}, chain: '' },
  { id: 4, properties: {}, person: {}, chain: '' },
  { id: 5, properties: { browser: 'chrome beta', n: 'abc', d: '2020-01-03' }, person: { email: 'cy@example.com' }, chain: '' },
];

const COLUMNS: PropertyColumns = {
  eventProperties: 'properties',
  personProperties: 'person_properties',
  personId: "toUUID('00000000-0000-0000-0000-000000000000')",
  groupProperties: () => 'properties',
  elementsChain: 'elements_chain',
  sessionDuration: 'toFloat64(id * 10)',
};

let directory: string;
let warehouse: ChdbWarehouse;

before(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-filters-'));
  warehouse = new ChdbWarehouse(directory);
  await warehouse.command('CREATE TABLE rows (id UInt32, properties String, person_properties String, elements_chain String) ENGINE = Memory');
  await warehouse.insert(
    'rows',
    ROWS.map((row) => ({
      id: row.id,
      properties: JSON.stringify(row.properties),
      person_properties: JSON.stringify(row.person),
      elements_chain: row.chain,
    })),
  );
});

after(async () => {
  await warehouse.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

async function compile(properties: unknown): Promise<{ sql: string; params: SqlParams }> {
  const params = new SqlParams();
  const sql = await compilePropertyFilters(parseProperties(properties), { columns: COLUMNS, params, cohorts: noCohorts });
  return { sql, params };
}

/** Ids of the rows a filter list (or group) matches. */
async function matching(properties: unknown): Promise<number[]> {
  const { sql, params } = await compile(properties);
  const rows = await warehouse.query<{ id: number }>(`SELECT id FROM rows WHERE ${sql} ORDER BY id`, params.all);
  return rows.map((row) => Number(row.id));
}

const event = (key: string, operator: string | undefined, value?: unknown) => ({ key, operator, value, type: 'event' });

describe('operators on event properties', () => {
  test('exact: the raw text of the value, lists match any; missing matches nothing', async () => {
    assert.deepEqual(await matching([event('browser', 'exact', 'Chrome')]), [1]);
    assert.deepEqual(await matching([event('browser', undefined, ['Chrome', 'Safari'])]), [1, 2]);
    assert.deepEqual(await matching([event('n', 'exact', 80)]), [1]);
    assert.deepEqual(await matching([event('s', 'exact', '80')]), [1]);
    assert.deepEqual(await matching([event('flag', 'exact', true)]), [1]);
    assert.deepEqual(await matching([event('browser', 'exact', 'Firefox')]), []);
  });

  test('unknown operators match exactly (legacy)', async () => {
    assert.deepEqual(await matching([event('browser', 'in', ['Safari'])]), [2]);
  });

  test('is_not includes missing and null properties', async () => {
    assert.deepEqual(await matching([event('browser', 'is_not', 'Chrome')]), [2, 3, 4, 5]);
    assert.deepEqual(await matching([event('browser', 'is_not', ['Chrome', 'Safari'])]), [3, 4, 5]);
  });

  test('icontains is a case-insensitive substring; not_icontains includes missing', async () => {
    assert.deepEqual(await matching([event('browser', 'icontains', 'CHROME')]), [1, 5]);
    assert.deepEqual(await matching([event('browser', 'not_icontains', 'chrome')]), [2, 3, 4]);
    assert.deepEqual(await matching([event('browser', 'icontains', '%')]), []);
  });

  test('regex and not_regex; an invalid pattern is false for both', async () => {
    assert.deepEqual(await matching([event('browser', 'regex', '^Chr')]), [1]);
    assert.deepEqual(await matching([event('browser', 'not_regex', '^Chr')]), [2, 3, 4, 5]);
    assert.deepEqual(await matching([event('browser', 'regex', '(unclosed')]), []);
    assert.deepEqual(await matching([event('browser', 'not_regex', '(unclosed')]), []);
    assert.deepEqual(await matching([event('browser', 'regex', '(?=lookahead)')]), []);
  });

  test('gt/gte/lt/lte coerce numbers and numeric strings (spaces removed); others never match', async () => {
    assert.deepEqual(await matching([event('n', 'gt', 50)]), [1]);
    assert.deepEqual(await matching([event('n', 'lt', '50')]), [2]);
    assert.deepEqual(await matching([event('n', 'lte', 12.5)]), [2]);
    assert.deepEqual(await matching([event('s', 'gte', 12)]), [1, 2]);
    assert.deepEqual(await matching([event('n', 'gt', 'abc')]), []);
    assert.deepEqual(await matching([event('missing', 'lt', 1000)]), []);
  });

  test('is_set is true for a JSON null; is_not_set only for missing keys', async () => {
    assert.deepEqual(await matching([{ key: 'browser', operator: 'is_set', type: 'event' }]), [1, 2, 3, 5]);
    assert.deepEqual(await matching([{ key: 'browser', operator: 'is_not_set', type: 'event' }]), [4]);
  });

  test('dates: exact day, after the whole day, before', async () => {
    assert.deepEqual(await matching([event('d', 'is_date_exact', '2020-01-02')]), [1]);
    assert.deepEqual(await matching([event('d', 'is_date_after', '2020-01-02')]), [5]);
    assert.deepEqual(await matching([event('d', 'is_date_before', '2020-01-03')]), [1]);
    assert.deepEqual(await matching([event('d', 'is_date_after', '2020-01-02T09:00:00Z')]), [1, 5]);
  });

  test('negation flips the operator', async () => {
    assert.deepEqual(await matching([{ ...event('browser', 'exact', 'Chrome'), negation: true }]), [2, 3, 4, 5]);
  });
});

describe('groups and shapes', () => {
  test('a list is AND; groups nest with their own combinator', async () => {
    assert.deepEqual(await matching([event('browser', 'icontains', 'chrome'), event('n', 'gt', 10)]), [1]);
    assert.deepEqual(
      await matching({
        type: 'AND',
        values: [
          { type: 'OR', values: [event('browser', 'exact', 'Chrome'), event('browser', 'exact', 'Safari')] },
          { type: 'AND', values: [{ key: 'n', operator: 'is_set', type: 'event' }] },
        ],
      }),
      [1, 2],
    );
  });

  test('empty filters match everything', async () => {
    assert.equal((await compile([])).sql, '1');
    assert.deepEqual(await matching({ type: 'OR', values: [] }), [1, 2, 3, 4, 5]);
  });

  test('the old {key__operator: value} dict', async () => {
    assert.deepEqual(await matching({ browser__icontains: 'saf' }), [2]);
    assert.deepEqual(await matching(JSON.stringify({ browser: 'Chrome' })), [1]);
  });

  test('invalid filters are dropped; mixing groups and filters is an error', async () => {
    assert.deepEqual(await matching([{ key: 'browser', type: 'event' }, { value: 1 }, { key: 'x', value: 1, type: 'nope' }]), [1, 2, 3, 4, 5]);
    assert.throws(
      () => parseProperties([{ type: 'AND', values: [] }, event('browser', 'exact', 'Chrome')]),
      (error: unknown) => error instanceof ValidationError && error.attr === 'properties',
    );
    assert.throws(() => parseProperties('[not json'), /Properties are unparsable!/);
  });

  test('keys and values are bound parameters, never SQL text', async () => {
    const { sql, params } = await compile([event("b'rowser", 'exact', "Chr'ome"), event('x"); DROP TABLE rows; --', 'gt', 1)]);
    assert.doesNotMatch(sql, /rowser|Chr|DROP/);
    assert.ok(Object.values(params.all).includes("b'rowser"));
    assert.deepEqual(await matching([event("b'rowser", 'exact', "Chr'ome")]), []);
  });
});

describe('other property types', () => {
  test('an event property with a column of its own is read from it; is_set and other keys read the JSON', async () => {
    const params = new SqlParams();
    const columns: PropertyColumns = { ...COLUMNS, materializedEventProperty: (key) => (key === 'browser' ? 'e.mat_browser' : undefined) };
    const filters = parseProperties([event('browser', 'exact', 'Chrome'), event('browser', 'is_set'), event('n', 'gt', 1)]);
    const sql = await compilePropertyFilters(filters, { columns, params, cohorts: noCohorts });
    assert.match(sql, /^\(has\(\{p_0:Array\(String\)\}, e\.mat_browser\)\) AND \(JSONHas\(properties, \{p_1:String\}\)\) AND /);
    assert.equal(sql.match(/JSONExtractString\(properties, \{p_\d+:String\}\)/g)?.length, 2, 'only n is parsed out of the JSON');
    assert.deepEqual(params.all, { p_0: ['Chrome'], p_1: 'browser', p_2: 'n', p_3: 1 });
  });

  test('person properties read the person column', async () => {
    assert.deepEqual(await matching([{ key: 'email', value: 'example.com', operator: 'icontains', type: 'person' }]), [1, 5]);
    assert.deepEqual(await matching([{ key: 'email', value: 'example.com', operator: 'not_icontains', type: 'person' }]), [2, 3, 4]);
  });

  test('group filters need a group type index', async () => {
    assert.deepEqual(await matching([{ key: 'browser', value: 'Safari', type: 'group', group_type_index: 0 }]), [2]);
    assert.deepEqual(await matching([{ key: 'browser', value: 'Safari', type: 'group' }]), [1, 2, 3, 4, 5]);
  });

  test('elements: tag name, href, text and selectors', async () => {
    assert.deepEqual(await matching([{ key: 'tag_name', value: 'a', type: 'element' }]), [1]);
    assert.deepEqual(await matching([{ key: 'tag_name', value: 'a', operator: 'is_not', type: 'element' }]), [2, 3, 4, 5]);
    assert.deepEqual(await matching([{ key: 'href', value: '/signup', type: 'element' }]), [1]);
    assert.deepEqual(await matching([{ key: 'text', value: 'go', operator: 'icontains', type: 'element' }]), [2]);
    assert.deepEqual(await matching([{ key: 'selector', value: 'a.btn', type: 'element' }]), [1]);
    assert.deepEqual(await matching([{ key: 'selector', value: 'div > a.primary', type: 'element' }]), [1]);
    assert.deepEqual(await matching([{ key: 'selector', value: 'button.btn', type: 'element' }]), []);
    await assert.rejects(compile([{ key: 'selector', value: 'a', operator: 'icontains', type: 'element' }]), ValidationError);
  });

  test('session duration compares numbers', async () => {
    assert.deepEqual(await matching([{ key: '$session_duration', value: 30, operator: 'gt', type: 'session' }]), [4, 5]);
    await assert.rejects(compile([{ key: '$session_duration', value: 'long', operator: 'gt', type: 'session' }]), ValidationError);
  });

  test('cohorts go through the resolver: without cohorts, an unknown id is a 400', async () => {
    await assert.rejects(compile([{ key: 'id', value: 7, type: 'cohort' }]), (error: unknown) => {
      return error instanceof ValidationError && error.attr === 'properties' && error.detail === 'Cohort 7 does not exist.';
    });
  });
});

describe('raw property values', () => {
  test("strings read as their decoded text, other values as PostHog's regex strip of JSONExtractRaw reads them", async () => {
    const values: unknown[] = [
      'plain',
      '',
      '"',
      '"quoted"',
      'a"b',
      'ends with "',
      '\\"',
      'a\\b',
      'line\nbreak',
      '\u0001',
      'é ✓ 😀',
      5,
      -1.5e-7,
      0,
      true,
      false,
      null,
      [1, 'a'],
      { k: '"v"' },
      ['"'],
    ];
    const rows = values.map((value, index) => ({ id: index, properties: JSON.stringify({ v: value }) }));
    rows.push({ id: values.length, properties: JSON.stringify({}) });
    await warehouse.command('CREATE TABLE raw_values (id UInt32, properties String) ENGINE = Memory');
    await warehouse.insert('raw_values', rows);
    const params = new SqlParams();
    const ours = rawPropertyValue('properties', 'v', params);
    const read = await warehouse.query<{ ours: string; posthog: string }>(
      `SELECT ${ours} AS ours, replaceRegexpAll(JSONExtractRaw(properties, 'v'), '^"|"$', '') AS posthog FROM raw_values ORDER BY id`,
      params.all,
    );
    assert.equal(read.length, values.length + 1);
    for (const [index, row] of read.entries()) {
      const value = values[index];
      assert.equal(row.ours, typeof value === 'string' ? value : row.posthog, JSON.stringify(value));
    }
    assert.deepEqual(
      read.slice(11).map((row) => row.ours),
      ['5', '-1.5e-7', '0', 'true', 'false', 'null', '[1,"a"]', '{"k":"\\"v\\""}', '["\\""]', ''],
    );
  });
});
