import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TABLES, type LazyJoinName } from '../../src/hogql/database.js';
import { HogQLQueryError } from '../../src/hogql/errors.js';
import { asteriskColumns, resolveField, Scope, type TableRef } from '../../src/hogql/resolver.js';

function scopeWith(...refs: TableRef[]): Scope {
  const scope = new Scope(null);
  for (const ref of refs) scope.addTable(ref);
  return scope;
}

function table(name: keyof typeof TABLES, alias: string = name): Extract<TableRef, { kind: 'table' }> {
  return { kind: 'table', alias, def: TABLES[name], joins: new Set<LazyJoinName>(), columns: new Set<string>() };
}

function unresolvable(run: () => unknown, message: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof HogQLQueryError, String(error));
    assert.equal(error.message, message);
    return true;
  });
}

describe('HogQL resolver', () => {
  test('a field of the only table, by name or through its alias', () => {
    const events = table('events', 'e');
    const scope = scopeWith(events);
    assert.deepEqual(resolveField(scope, ['event']), { sql: '`e`.`event`', path: [], json: false, name: 'event', nullable: false });
    assert.deepEqual(resolveField(scope, ['e', 'event']), { sql: '`e`.`event`', path: [], json: false, name: 'event', nullable: false });
    assert.equal(events.joins.size, 0);
  });

  test('property chains read into the JSON column; their name is the path joined by __', () => {
    const scope = scopeWith(table('events'));
    assert.deepEqual(resolveField(scope, ['properties', 'nested', 'a', 'b']), {
      sql: '`events`.`properties`',
      path: ['nested', 'a', 'b'],
      json: true,
      name: 'nested__a__b',
      nullable: true,
    });
    assert.deepEqual(resolveField(scope, ['properties']).path, []);
  });

  test('lazy tables: person, pdi and group_N ask for their join; poe reads the event row', () => {
    const events = table('events');
    const scope = scopeWith(events);
    assert.deepEqual(resolveField(scope, ['person', 'properties', 'email']), {
      sql: '`events`.`__person__properties`',
      path: ['email'],
      json: true,
      name: 'email',
      nullable: true,
    });
    assert.equal(resolveField(scope, ['person_id']).sql, '`events`.`__current_person_id`');
    assert.equal(resolveField(scope, ['pdi', 'distinct_id']).sql, '`events`.`__pdi__distinct_id`');
    assert.equal(resolveField(scope, ['group_2', 'properties', 'name']).sql, '`events`.`__group_2__properties`');
    assert.equal(resolveField(scope, ['poe', 'properties', 'x']).sql, '`events`.`person_properties`');
    assert.deepEqual([...events.joins].sort(), ['group_2', 'pdi', 'person']);
  });

  test('the person of a distinct id', () => {
    const pdis = table('person_distinct_ids');
    assert.equal(resolveField(scopeWith(pdis), ['person', 'id']).sql, '`person_distinct_ids`.`__person__id`');
    assert.deepEqual([...pdis.joins], ['person']);
  });

  test('subquery columns and numbers()', () => {
    const scope = scopeWith({ kind: 'subquery', alias: 't', columns: ['event', 'c'] }, { kind: 'numbers', alias: 'n' });
    assert.equal(resolveField(scope, ['c']).sql, '`t`.`c`');
    assert.equal(resolveField(scope, ['t', 'event']).sql, '`t`.`event`');
    assert.equal(resolveField(scope, ['number']).sql, '`n`.number');
  });

  test('unknown and ambiguous fields', () => {
    const scope = scopeWith(table('events', 'a'), table('events', 'b'));
    unresolvable(() => resolveField(scope, ['event']), 'Ambiguous query. Found multiple sources for field: event');
    unresolvable(() => resolveField(scope, ['nope']), 'Unable to resolve field: nope');
    unresolvable(() => resolveField(scope, ['a', 'nope']), 'Unable to resolve field: a.nope');
    unresolvable(() => resolveField(scopeWith(table('events')), ['event', 'x']), 'Can not access property "x" on field "event"');
    unresolvable(() => resolveField(scopeWith(table('events')), ['person']), 'Can not select the whole "person": select its fields, e.g. person.id');
    unresolvable(() => resolveField(scopeWith(table('events')), ['person', 'nope']), 'Unable to resolve field: person.nope');
  });

  test('* selects the visible columns, never team_id or the lazy tables', () => {
    const [events] = asteriskColumns(scopeWith(table('events')), null);
    assert.deepEqual(events!.columns.slice(0, 10), [
      'uuid',
      'event',
      'properties',
      'timestamp',
      'distinct_id',
      'elements_chain',
      'created_at',
      '$session_id',
      '$window_id',
      'person_mode',
    ]);
    assert.deepEqual(events!.columns.slice(10), ['$group_0', '$group_1', '$group_2', '$group_3', '$group_4']);
    assert.deepEqual(asteriskColumns(scopeWith(table('persons', 'p')), 'p')[0]!.columns, ['id', 'created_at', 'properties', 'is_identified']);
    unresolvable(() => asteriskColumns(new Scope(null), null), 'Cannot select * without a FROM clause');
  });
});
