import { CURRENT_DISTINCT_IDS, CURRENT_GROUPS, CURRENT_PERSONS } from '../storage/warehouse/replicas.js';

/**
 * The tables a HogQL query can read and their fields, and the guarded SQL each one prints as:
 * every table is a subquery of the path's project's rows (the `{team_id:Int64}` parameter), so
 * whatever a query joins, nests or unions, only that project's rows exist for it. Replicas are
 * read at their current version, deleted rows left out.
 */

export type TableName = 'events' | 'persons' | 'person_distinct_ids' | 'groups';

/** A column of the table's guarded subquery. */
export interface ColumnField {
  type: 'column';
  column: string;
  /** JSON text: `properties.x` reads into it. */
  json?: boolean;
  /** A time, read in the project's time zone as PostHog does. */
  datetime?: boolean;
  /** The lazy join the column comes from, added to the subquery only when read. */
  join?: LazyJoinName;
}

/** A field that is another table, joined lazily: `events.person.properties.email`. */
export interface TableField {
  type: 'table';
  join: LazyJoinName;
  table: TableName;
}

/** A field that groups columns of the same row: `events.poe.properties`. */
export interface VirtualTableField {
  type: 'virtual';
  fields: Record<string, ColumnField>;
}

export type FieldDef = ColumnField | TableField | VirtualTableField;

export type LazyJoinName = 'pdi' | 'person' | `group_${0 | 1 | 2 | 3 | 4}`;

export interface TableDef {
  name: TableName;
  fields: Record<string, FieldDef>;
  /** What `*` selects, in order. */
  asterisk: string[];
}

const GROUP_INDEXES = [0, 1, 2, 3, 4] as const;

const TIMES = new Set(['timestamp', 'created_at', 'updated_at']);

function columns(names: string[], json: string[] = []): Record<string, ColumnField> {
  return Object.fromEntries(
    names.map((name) => [
      name,
      { type: 'column', column: name, ...(json.includes(name) ? { json: true } : {}), ...(TIMES.has(name) ? { datetime: true } : {}) },
    ]),
  );
}

/** The column of a lazily joined table's field inside the guarded subquery. */
export function lazyColumn(join: LazyJoinName, field: string): string {
  return `__${join}__${field}`;
}

const EVENT_COLUMNS = [
  'uuid',
  'event',
  'properties',
  'timestamp',
  'team_id',
  'distinct_id',
  'elements_chain',
  'created_at',
  '$session_id',
  '$window_id',
  'person_mode',
  ...GROUP_INDEXES.map((index) => `$group_${index}`),
];

export const TABLES: Record<TableName, TableDef> = {
  events: {
    name: 'events',
    fields: {
      ...columns(EVENT_COLUMNS, ['properties']),
      person_id: { type: 'column', column: '__current_person_id', join: 'pdi' },
      person: { type: 'table', join: 'person', table: 'persons' },
      pdi: { type: 'table', join: 'pdi', table: 'person_distinct_ids' },
      poe: {
        type: 'virtual',
        fields: {
          id: { type: 'column', column: 'person_id' },
          properties: { type: 'column', column: 'person_properties', json: true },
          created_at: { type: 'column', column: 'person_created_at', datetime: true },
        },
      },
      ...Object.fromEntries(GROUP_INDEXES.map((index) => [`group_${index}`, { type: 'table', join: `group_${index}`, table: 'groups' } satisfies TableField])),
    },
    asterisk: EVENT_COLUMNS.filter((name) => name !== 'team_id'),
  },
  persons: {
    name: 'persons',
    fields: columns(['id', 'created_at', 'team_id', 'properties', 'is_identified'], ['properties']),
    asterisk: ['id', 'created_at', 'properties', 'is_identified'],
  },
  person_distinct_ids: {
    name: 'person_distinct_ids',
    fields: {
      ...columns(['team_id', 'distinct_id', 'person_id']),
      person: { type: 'table', join: 'person', table: 'persons' },
    },
    asterisk: ['distinct_id', 'person_id'],
  },
  groups: {
    name: 'groups',
    fields: columns(['index', 'team_id', 'key', 'created_at', 'updated_at', 'properties'], ['properties']),
    asterisk: ['index', 'key', 'created_at', 'updated_at', 'properties'],
  },
};

export function isTableName(name: string): name is TableName {
  return Object.hasOwn(TABLES, name);
}

function quoted(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

const PERSONS = `(${CURRENT_PERSONS})`;

function lazyJoinSql(join: LazyJoinName, source: string): { join: string; columns: string[] } {
  if (join === 'pdi') {
    return {
      join: `LEFT JOIN (${CURRENT_DISTINCT_IDS}) AS __pdi ON __pdi.distinct_id = ${source}.distinct_id`,
      columns: [
        `__pdi.distinct_id AS ${lazyColumn('pdi', 'distinct_id')}`,
        `__pdi.person_id AS ${lazyColumn('pdi', 'person_id')}`,
        `{team_id:Int64} AS ${lazyColumn('pdi', 'team_id')}`,
        // The current person of the distinct id; events without a mapping keep the person they were stored with.
        `if(__pdi.distinct_id = '', ${source}.person_id, __pdi.person_id) AS __current_person_id`,
      ],
    };
  }
  if (join === 'person') {
    const personId = source === '__events' ? `if(__pdi.distinct_id = '', ${source}.person_id, __pdi.person_id)` : `${source}.person_id`;
    return {
      join: `LEFT JOIN ${PERSONS} AS __person ON __person.id = ${personId}`,
      columns: ['id', 'created_at', 'properties', 'is_identified']
        .map((field) => `__person.${field} AS ${lazyColumn('person', field)}`)
        .concat(`{team_id:Int64} AS ${lazyColumn('person', 'team_id')}`),
    };
  }
  const index = Number(join.slice('group_'.length));
  const alias = `__${join}`;
  return {
    join:
      `LEFT JOIN (SELECT group_key, group_properties, created_at FROM (${CURRENT_GROUPS}) WHERE group_type_index = ${index}) ` +
      `AS ${alias} ON ${alias}.group_key = ${source}.\`$group_${index}\``,
    columns: [
      `${index} AS ${lazyColumn(join, 'index')}`,
      `${alias}.group_key AS ${lazyColumn(join, 'key')}`,
      `${alias}.group_properties AS ${lazyColumn(join, 'properties')}`,
      `${alias}.created_at AS ${lazyColumn(join, 'created_at')}`,
      `${alias}.created_at AS ${lazyColumn(join, 'updated_at')}`,
      `{team_id:Int64} AS ${lazyColumn(join, 'team_id')}`,
    ],
  };
}

/** The events subquery's columns, by the name the query reads them under. */
const EVENT_SELECT: ReadonlyMap<string, string> = new Map([
  ...EVENT_COLUMNS.filter((name) => name !== '$window_id').map((name): [string, string] => [name, `__events.${quoted(name)}`]),
  ['$window_id', `JSONExtractString(__events.properties, '$window_id')`],
  ['person_id', '__events.person_id'],
  ['person_properties', '__events.person_properties'],
  ['person_created_at', '__events.person_created_at'],
]);

/**
 * The guarded subquery a table prints as, with the lazy joins the query reads. Its rows are
 * the project's only: the condition on `{team_id:Int64}` is inside, where nothing the query
 * says can reach it. The events subquery selects only the `columns` the query reads (all when
 * null): ClickHouse analyses every column a subquery names, which costs a millisecond or more
 * of a query that reads one.
 */
export function tableSql(table: TableName, joins: ReadonlySet<LazyJoinName>, columns: ReadonlySet<string> | null = null): string {
  const wanted = [...joins];
  // The person of an event is found through its distinct id.
  if (table === 'events' && joins.has('person') && !joins.has('pdi')) wanted.unshift('pdi');
  const ordered = wanted.sort((a, b) => (a === 'pdi' ? -1 : b === 'pdi' ? 1 : a.localeCompare(b)));
  switch (table) {
    case 'events': {
      const lazy = ordered.map((join) => lazyJoinSql(join, '__events'));
      const read = [...EVENT_SELECT].filter(([name]) => columns === null || columns.has(name));
      const selected = [
        // A subquery needs a column even when the query reads none (`SELECT count() FROM events`).
        ...(read.length > 0 || lazy.length > 0 ? read : [['team_id', EVENT_SELECT.get('team_id')!]]).map(([name, sql]) => `${sql} AS ${quoted(name!)}`),
        ...lazy.flatMap((item) => item.columns),
      ];
      const joinsSql = lazy.map((item) => ` ${item.join}`).join('');
      return `(SELECT ${selected.join(', ')} FROM events AS __events${joinsSql} WHERE __events.team_id = {team_id:Int64})`;
    }
    case 'persons':
      return `(SELECT id, created_at, team_id, properties, is_identified FROM persons FINAL WHERE team_id = {team_id:Int64} AND is_deleted = 0)`;
    case 'person_distinct_ids': {
      const lazy = ordered.filter((join) => join === 'person').map((join) => lazyJoinSql(join, '__pdis'));
      const selected = [
        '__pdis.team_id AS team_id',
        '__pdis.distinct_id AS distinct_id',
        '__pdis.person_id AS person_id',
        ...lazy.flatMap((item) => item.columns),
      ];
      return (
        `(SELECT ${selected.join(', ')} FROM (SELECT team_id, distinct_id, person_id FROM person_distinct_ids FINAL ` +
        `WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS __pdis${lazy.map((item) => ` ${item.join}`).join('')})`
      );
    }
    case 'groups':
      return (
        '(SELECT group_type_index AS `index`, team_id, group_key AS `key`, created_at, created_at AS updated_at, ' +
        'group_properties AS properties FROM groups FINAL WHERE team_id = {team_id:Int64})'
      );
  }
}

export { quoted as quotedIdentifier };
