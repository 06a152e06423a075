import { noCohorts, type CohortSqlResolver } from '../insights/resolvers.js';
import type { Project } from '../projects/project.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import type { PersonListFilter } from './person-list-filter.js';
import { LISTED_PERSON_DETAILS, PersonListSql, type ListCursor, type ListedPersonKey } from './person-list-query.js';
import { serializePerson, type ApiPerson, type PersonView } from './person-serializer.js';

/** Persons per warehouse round trip when a CSV export walks the whole list. */
const EXPORT_CHUNK = 10_000;

interface DetailRow {
  person_uuid: string;
  current_properties: string;
  identified: number | string;
  distinct_ids: string[] | null;
}

/** Warehouse DateTime64 text as the catalog's ISO form (`2024-01-02T03:04:05.123456Z`). */
function isoOf(createdText: string): string {
  return `${createdText.replace(' ', 'T')}Z`;
}

/**
 * `GET /persons`: filtered, newest first (created_at, then id), counted — all in the warehouse,
 * on the replicas the outbox keeps in step with the catalog.
 */
export class PersonListService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly cohorts: CohortSqlResolver = noCohorts,
  ) {}

  async list(project: Project, filter: PersonListFilter, page: { limit: number; offset: number }) {
    const sql = await PersonListSql.build(project.id, filter, this.cohorts);
    const pageQuery = sql.page(page.limit, page.offset);
    const keys = await this.warehouse.query<ListedPersonKey>(pageQuery.sql, pageQuery.params);
    return { total: await this.total(sql, keys, page.offset), persons: await this.withDetails(project, keys) };
  }

  private async total(sql: PersonListSql, keys: ListedPersonKey[], offset: number): Promise<number> {
    const counted = keys[0]?.total;
    if (counted !== undefined) return Number(counted);
    if (keys.length === 0 && offset === 0) return 0;
    const count = sql.count();
    const [row] = await this.warehouse.query<{ total: string | number }>(count.sql, count.params);
    return Number(row?.total ?? 0);
  }

  /** Every matching person in list order, a chunk at a time (keyset paging, so no chunk re-reads the ones before). */
  async *all(project: Project, filter: PersonListFilter): AsyncGenerator<ApiPerson> {
    const sql = await PersonListSql.build(project.id, filter, this.cohorts);
    let cursor: ListCursor | null = null;
    for (;;) {
      const chunk = sql.chunk(EXPORT_CHUNK, cursor);
      const keys = await this.warehouse.query<ListedPersonKey>(chunk.sql, chunk.params);
      yield* await this.withDetails(project, keys);
      if (keys.length < EXPORT_CHUNK) return;
      const last = keys[keys.length - 1]!;
      cursor = { createdText: last.created_text, personNumber: String(last.person_number) };
    }
  }

  private async withDetails(project: Project, keys: ListedPersonKey[]): Promise<ApiPerson[]> {
    if (keys.length === 0) return [];
    const rows = await this.warehouse.query<DetailRow>(LISTED_PERSON_DETAILS, {
      team_id: project.id,
      uuids: keys.map((key) => key.person_uuid),
    });
    const details = new Map(rows.map((row) => [row.person_uuid, row]));
    return keys.map((key) => {
      const detail = details.get(key.person_uuid);
      const view: PersonView = {
        id: Number(key.person_number),
        uuid: key.person_uuid,
        properties: detail ? (JSON.parse(detail.current_properties) as Record<string, unknown>) : {},
        isIdentified: Number(detail?.identified ?? 0) === 1,
        createdAt: isoOf(key.created_text),
        distinctIds: detail?.distinct_ids ?? [],
      };
      return serializePerson(view, project);
    });
  }
}
