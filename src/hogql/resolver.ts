import type { CTE } from './ast.js';
import { TABLES, lazyColumn, quotedIdentifier, type ColumnField, type LazyJoinName, type TableDef } from './database.js';
import { HogQLQueryError } from './errors.js';

/**
 * Name resolution of HogQL: which table, column, alias or lambda argument a name means in a
 * SELECT, and the lazy joins that reading it needs. The printer asks; this module knows the
 * schema and the scopes.
 */

/** A table of a SELECT's FROM, under the alias the query gives it (or its own name). */
export type TableRef =
  | {
      kind: 'table';
      alias: string;
      def: TableDef;
      joins: Set<LazyJoinName>;
      /** The table's own columns the query reads; null when it may read any (raw SQL from Tally's compilers). */
      columns: Set<string> | null;
    }
  | { kind: 'subquery'; alias: string; columns: string[] }
  | { kind: 'numbers'; alias: string };

/** What a field chain resolved to. */
export interface ResolvedField {
  /** The ClickHouse SQL of the column. */
  sql: string;
  /** Keys read into the column's JSON (`properties.a.b` → `['a', 'b']`); empty for the column itself. */
  path: string[];
  json: boolean;
  /** The name the column gets when selected (PostHog's hidden alias). */
  name: string;
  /** Whether the column can hold NULL (property reads can; stored columns cannot). */
  nullable: boolean;
  /** A stored time, which reads in the project's time zone. */
  datetime?: true;
}

export class Scope {
  readonly tables = new Map<string, TableRef>();
  readonly aliases = new Map<string, true>();
  readonly arrayJoinAliases = new Set<string>();
  readonly ctes = new Map<string, CTE>();
  readonly lambdaArgs: string[] = [];

  constructor(readonly parent: Scope | null) {}

  cte(name: string): CTE | undefined {
    return this.ctes.get(name) ?? this.parent?.cte(name);
  }

  addTable(ref: TableRef): void {
    if (this.tables.has(ref.alias)) throw new HogQLQueryError(`Table alias "${ref.alias}" is used more than once in the same SELECT`);
    this.tables.set(ref.alias, ref);
  }
}

function unresolved(chain: string[]): never {
  throw new HogQLQueryError(`Unable to resolve field: ${chain.join('.')}`);
}

function propertyName(path: string[]): string {
  return path.join('__');
}

function columnOf(ref: Extract<TableRef, { kind: 'table' }>, field: ColumnField, rest: string[], chain: string[], fieldName: string): ResolvedField {
  if (field.join) ref.joins.add(field.join);
  else ref.columns?.add(field.column);
  const sql = `${quotedIdentifier(ref.alias)}.${quotedIdentifier(field.column)}`;
  if (rest.length > 0 && !field.json)
    throw new HogQLQueryError(`Can not access property "${rest.join('.')}" on field "${chain.slice(0, chain.length - rest.length).join('.')}"`);
  return {
    sql,
    path: rest,
    json: field.json === true,
    name: rest.length > 0 ? propertyName(rest) : fieldName,
    nullable: rest.length > 0,
    ...(field.datetime ? { datetime: true as const } : {}),
  };
}

/** A field chain read from one table: `event`, `properties.$browser`, `person.properties.email`, `poe.id`. */
export function fieldOfTable(ref: TableRef, chain: string[], fullChain: string[]): ResolvedField | null {
  const [name, ...rest] = chain;
  if (name === undefined) return null;
  if (ref.kind === 'numbers') {
    if (name !== 'number') return null;
    if (rest.length > 0) unresolved(fullChain);
    return { sql: `${quotedIdentifier(ref.alias)}.number`, path: [], json: false, name: 'number', nullable: false };
  }
  if (ref.kind === 'subquery') {
    if (!ref.columns.includes(name)) return null;
    if (rest.length > 0) {
      // A JSON column a subquery passed through: `t.properties.$browser`.
      return { sql: `${quotedIdentifier(ref.alias)}.${quotedIdentifier(name)}`, path: rest, json: true, name: propertyName(rest), nullable: true };
    }
    return { sql: `${quotedIdentifier(ref.alias)}.${quotedIdentifier(name)}`, path: [], json: false, name, nullable: true };
  }
  const field = Object.hasOwn(ref.def.fields, name) ? ref.def.fields[name] : undefined;
  if (!field) return null;
  if (field.type === 'column') return columnOf(ref, field, rest, fullChain, name);
  if (field.type === 'virtual') {
    const [inner, ...innerRest] = rest;
    if (inner === undefined) throw new HogQLQueryError(`Can not select the whole "${name}": select its fields, e.g. ${name}.${Object.keys(field.fields)[0]}`);
    const column = Object.hasOwn(field.fields, inner) ? field.fields[inner] : undefined;
    if (!column) unresolved(fullChain);
    return columnOf(ref, column, innerRest, fullChain, inner);
  }
  const target = TABLES[field.table];
  const [inner, ...innerRest] = rest;
  if (inner === undefined) throw new HogQLQueryError(`Can not select the whole "${name}": select its fields, e.g. ${name}.${target.asterisk[0]}`);
  const targetField = Object.hasOwn(target.fields, inner) ? target.fields[inner] : undefined;
  if (targetField?.type !== 'column' || targetField.join) unresolved(fullChain);
  ref.joins.add(field.join);
  return columnOf(
    ref,
    { type: 'column', column: lazyColumn(field.join, inner), json: targetField.json, datetime: targetField.datetime },
    innerRest,
    fullChain,
    inner,
  );
}

/**
 * Resolves a field chain in a SELECT: a table alias first (`e.event`), then a field of exactly
 * one of the SELECT's tables (`event`). Unknown → `Unable to resolve field`; several tables
 * having it → ambiguous.
 */
export function resolveField(scope: Scope, chain: string[]): ResolvedField {
  const [first, ...rest] = chain;
  if (first === undefined) unresolved(chain);
  if (rest.length > 0) {
    const table = scope.tables.get(first);
    if (table) {
      const resolved = fieldOfTable(table, rest, chain);
      if (resolved) return resolved;
      unresolved(chain);
    }
  }
  const matches: ResolvedField[] = [];
  for (const table of scope.tables.values()) {
    const resolved = fieldOfTable(table, chain, chain);
    if (resolved) matches.push(resolved);
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new HogQLQueryError(`Ambiguous query. Found multiple sources for field: ${first}`);
  return unresolved(chain);
}

/** The columns `*` (or `alias.*`) selects, as field chains of their table. */
export function asteriskColumns(scope: Scope, alias: string | null): { table: TableRef; columns: string[] }[] {
  const tables = alias === null ? [...scope.tables.values()] : [scope.tables.get(alias)];
  if (alias !== null && !tables[0]) throw new HogQLQueryError(`Unknown table "${alias}" in ${alias}.*`);
  if (tables.length === 0) throw new HogQLQueryError('Cannot select * without a FROM clause');
  return tables.map((table) => {
    const ref = table!;
    if (ref.kind === 'numbers') return { table: ref, columns: ['number'] };
    if (ref.kind === 'subquery') return { table: ref, columns: ref.columns };
    return { table: ref, columns: ref.def.asterisk };
  });
}
