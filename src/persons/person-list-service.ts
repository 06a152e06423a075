import { noCohorts, type CohortSqlResolver } from '../query/resolvers.js';
import type { SqlParams } from '../query/sql-params.js';
import type { Project } from '../projects/project.js';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { comparedPersonProperties, listsEveryone, type PersonListFilter } from './person-list-filter.js';
import type { MaterializedProperties } from '../query/materialized-properties.js';
import { PersonListSql, type ListCursor, type ListedPersonKey } from './person-list-query.js';
import type { PersonHydrator } from './person-hydrator.js';
import type { PersonRepository } from './person-repository.js';
import type { ApiPerson } from './person-serializer.js';

/** Persons per warehouse round trip when a CSV export walks the whole list. */
const EXPORT_CHUNK = 10_000;

interface ListPage {
  limit: number;
  offset: number;
}

/**
 * `GET /persons`: newest first (created_at, then id), counted. A filtered list is found in the
 * warehouse, on the replicas the outbox keeps in step with the catalog, with the shared
 * property-filter compiler; the whole list is paged on a catalog index, which skips to any offset
 * faster than the warehouse can resolve and sort the current version of every person. Either
 * way the page's persons are read from the catalog, the source of truth, by key.
 */
export class PersonListService {
  constructor(
    private readonly db: CatalogDb,
    private readonly persons: PersonRepository,
    private readonly hydrator: PersonHydrator,
    private readonly warehouse: Warehouse,
    private readonly materialized: MaterializedProperties,
    private readonly cohorts: CohortSqlResolver = noCohorts,
  ) {}

  /** The filtered list's SQL, reading the compared properties from their columns. */
  private async sqlFor(project: Project, filter: PersonListFilter): Promise<PersonListSql> {
    const columns = await this.materialized.columnsFor(comparedPersonProperties(filter));
    return PersonListSql.build(project.id, filter, this.cohorts, columns);
  }

  async list(project: Project, filter: PersonListFilter, page: ListPage): Promise<{ total: number; persons: ApiPerson[] }> {
    if (listsEveryone(filter)) return this.everyone(project, page);
    const sql = await this.sqlFor(project, filter);
    const pageQuery = sql.page(page.limit, page.offset);
    const keys = await this.warehouse.query<ListedPersonKey>(pageQuery.sql, pageQuery.params);
    return { total: await this.total(sql, keys, page.offset), persons: await this.inListOrder(project, keys) };
  }

  /** The persons the filter matches, as the rows of an actors page that another order sorts (see PersonListSql.matchingRows). */
  async matchingRows(project: Project, filter: PersonListFilter): Promise<{ sql: string; params: SqlParams }> {
    return (await this.sqlFor(project, filter)).matchingRows();
  }

  /** The replica columns that hold these person properties (key → column), for a query to read them by; keys without one read the JSON. */
  propertyColumns(keys: Iterable<string>): Promise<ReadonlyMap<string, string>> {
    return this.materialized.columnsFor(keys);
  }

  /** The whole list: the count and the page read in one snapshot, so the page is where the count says. */
  private async everyone(project: Project, page: ListPage) {
    const { total, records } = await this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const persons = this.persons.withTransaction(trx);
        const total = await persons.countInProject(project.id);
        return { total, records: await persons.pageNewestFirst(project.id, total, page) };
      });
    return { total, persons: await this.hydrator.serialize(project, records) };
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
    const sql = await this.sqlFor(project, filter);
    let cursor: ListCursor | null = null;
    for (;;) {
      const chunk = sql.chunk(EXPORT_CHUNK, cursor);
      const keys = await this.warehouse.query<ListedPersonKey>(chunk.sql, chunk.params);
      yield* await this.inListOrder(project, keys);
      if (keys.length < EXPORT_CHUNK) return;
      const last = keys[keys.length - 1]!;
      cursor = { createdText: last.created_text, personNumber: String(last.person_number) };
    }
  }

  /** The persons the warehouse listed, in its order; one deleted since is left out. */
  private async inListOrder(project: Project, keys: ListedPersonKey[]): Promise<ApiPerson[]> {
    const found = await this.hydrator.byUuids(
      project,
      keys.map((key) => key.person_uuid),
    );
    return keys.map((key) => found.get(key.person_uuid)).filter((person) => person !== undefined);
  }
}
