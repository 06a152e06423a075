import { stringParam } from '../util/request-params.js';
import { compilePropertyFilters } from '../query/property-filters.js';
import { noCohorts } from '../query/resolvers.js';
import { SqlParams } from '../query/sql-params.js';
import type { Project } from '../projects/project.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { PersonRowColumns } from './person-columns.js';

/** `key`, the person property, and `value`, a text its values contain; a repeated one arrives as a list. */
export type PropertyValuesParams = {
  key?: string | string[];
  value?: string | string[];
};

export interface PropertyValueCount {
  name: string;
  count: number;
}

const TOP_VALUES = 20;
/** Raw JSON spellings fetched before merging equal names (`"true"` and `true` both show as `true`). */
const RAW_CANDIDATES = 200;

function sortedKeysJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeysJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortedKeysJson((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** PostHog's `convert_property_value`: text as is, numbers and booleans as text, objects as sorted-key JSON. */
function valueName(rawJson: string): string {
  const value = JSON.parse(rawJson) as unknown;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return rawJson;
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(sortedKeysJson(value));
}

/** `GET /persons/values?key=K[&value=V]`: the most common values of a person property. */
export class PersonValuesService {
  constructor(private readonly warehouse: Warehouse) {}

  async values(project: Project, query: PropertyValuesParams): Promise<PropertyValueCount[]> {
    const key = stringParam(query, 'key');
    if (key === undefined || key === '') return [];
    const search = stringParam(query, 'value');
    const params = new SqlParams({ team_id: project.id });
    const context = { params, cohorts: noCohorts, columns: new PersonRowColumns() };
    const matches =
      search === undefined || search === ''
        ? '1'
        : await compilePropertyFilters(
            {
              kind: 'group',
              type: 'AND',
              values: [{ kind: 'filter', type: 'person', key, value: search, operator: 'icontains', groupTypeIndex: null, negation: false }],
            },
            context,
          );
    const rows = await this.warehouse.query<{ raw_value: string; persons_count: string | number }>(
      `SELECT raw_value, count() AS persons_count
       FROM (
         SELECT JSONExtractRaw(person.properties, ${params.add(key, 'String')}) AS raw_value
         FROM (
           SELECT id, argMax(properties, version) AS properties FROM persons
           WHERE team_id = {team_id:Int64} GROUP BY id HAVING argMax(is_deleted, version) = 0
         ) AS person
         WHERE ${matches}
       )
       WHERE raw_value NOT IN ('', 'null', '""')
       GROUP BY raw_value
       ORDER BY persons_count DESC, raw_value
       LIMIT ${RAW_CANDIDATES}`,
      params.all,
    );
    const counts = new Map<string, number>();
    for (const row of rows) {
      const name = valueName(row.raw_value);
      counts.set(name, (counts.get(name) ?? 0) + Number(row.persons_count));
    }
    return [...counts]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, TOP_VALUES);
  }
}
