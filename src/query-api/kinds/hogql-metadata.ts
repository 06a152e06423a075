import { ValidationError } from '../../errors.js';
import type { Expr, SelectQuery, SelectSetQuery } from '../../hogql/ast.js';
import { emptySelect } from '../../hogql/ast.js';
import { HogQLError } from '../../hogql/errors.js';
import { parseExpr, parseSelect } from '../../hogql/parser.js';
import { printSelect } from '../../hogql/printer.js';
import { SqlParams } from '../../query/sql-params.js';
import { requiredString } from '../node-fields.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';

const HOG_LANGUAGES = new Set(['hog', 'hogTemplate', 'hogJson']);

interface Notice {
  message: string;
  start: number | null;
  end: number | null;
  fix: null;
}

/** The tables a query names, in the order they appear. */
function tableNames(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) tableNames(item, found);
  } else if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    if (record.kind === 'JoinExpr') {
      const table = record.table as { kind: string; chain?: string[] };
      if (table.kind === 'Field' && table.chain) found.add(table.chain.join('.'));
    }
    for (const value of Object.values(record)) if (typeof value === 'object') tableNames(value, found);
  }
  return found;
}

function notice(error: unknown): Notice {
  if (error instanceof HogQLError) return { message: error.message, start: error.start, end: error.end, fix: null };
  if (error instanceof RangeError) return { message: 'Query is nested too deeply', start: null, end: null, fix: null };
  return { message: `Unexpected ${error instanceof Error ? error.constructor.name : 'error'}`, start: null, end: null, fix: null };
}

/**
 * HogQLMetadata: whether a HogQL query (`hogQL`) or expression (`hogQLExpr`, checked as a
 * column of `events`) parses and resolves, with the errors' positions. It prints the query
 * to find every problem and never runs it; problems in the text are answers, not 400s.
 */
export class HogQLMetadataKind implements QueryKind {
  async run(node: QueryNode, { project, path }: QueryRunContext): Promise<QueryResponse> {
    const language = requiredString(node, 'language', path);
    if (HOG_LANGUAGES.has(language))
      throw new ValidationError(`${path}.language`, `Tally runs no Hog: only "hogQL" and "hogQLExpr" can be checked, not "${language}".`);
    if (language !== 'hogQL' && language !== 'hogQLExpr') {
      throw new ValidationError(`${path}.language`, `"${language}" is not a language: use "hogQL" or "hogQLExpr".`, 'invalid_choice');
    }
    const text = requiredString(node, 'query', path);
    const errors: Notice[] = [];
    let tables: string[] = [];
    try {
      let query: SelectQuery | SelectSetQuery;
      if (language === 'hogQL') {
        query = parseSelect(text);
      } else {
        const expr: Expr = parseExpr(text);
        query = emptySelect([expr]);
        query.selectFrom = {
          kind: 'JoinExpr',
          table: { kind: 'Field', chain: ['events'] },
          tableArgs: null,
          alias: null,
          joinType: null,
          constraint: null,
          nextJoin: null,
          final: false,
          sample: null,
        };
      }
      tables = [...tableNames(query, new Set())];
      printSelect(query, { params: new SqlParams({ team_id: project.id }), timezone: project.timezone, values: null });
    } catch (error) {
      errors.push(notice(error));
    }
    return { isValid: errors.length === 0, query: text, errors, warnings: [], notices: [], table_names: tables };
  }
}
