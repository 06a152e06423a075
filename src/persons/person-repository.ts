import type { Selectable } from 'kysely';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import type { PersonTable } from '../storage/catalog/schema.js';
import { chunks } from '../util/chunks.js';
import { parseJsonColumn } from '../util/json.js';
import type { PersonKey } from './person-id.js';
import type { PersonRecord } from './person.js';

/** Person ids are 32-bit serials on PostgreSQL; a larger number names no person (and must not reach SQL). */
const MAX_PERSON_ID = 2_147_483_647;

/** Rows per multi-row statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

export function toPersonRecord(row: Selectable<PersonTable>): PersonRecord {
  return {
    id: Number(row.id),
    uuid: row.uuid,
    teamId: Number(row.team_id),
    properties: parseJsonColumn<Record<string, unknown>>(row.properties, {}),
    isIdentified: Number(row.is_identified) === 1,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    version: Number(row.version),
  };
}

/** Properties already serialised by a caller that has them (ingestion keeps them per person). */
export interface SerialisedProperties {
  propertiesJson?: string | null;
}

/** A person as read from the catalog, with its properties also as the stored text. */
export type StoredPerson = PersonRecord & { propertiesJson: string };

/** A person before the catalog numbers it; its version starts at 0. */
export type NewPerson = Omit<PersonRecord, 'id' | 'version'> & SerialisedProperties;

/** The catalog columns of a person (the integer id is added by callers that know it). */
function personColumns(person: NewPerson, version: number) {
  return {
    uuid: person.uuid,
    team_id: person.teamId,
    properties: person.propertiesJson ?? JSON.stringify(person.properties),
    is_identified: person.isIdentified ? 1 : 0,
    created_at: person.createdAt,
    last_seen_at: person.lastSeenAt,
    version,
  };
}

/**
 * Catalog SQL for persons and their distinct ids. Writes that must commit with a caller's other
 * changes run on the repository `withTransaction` gives.
 */
export class PersonRepository {
  constructor(private readonly db: CatalogDb) {}

  withTransaction(trx: CatalogTransaction): PersonRepository {
    return new PersonRepository(trx);
  }

  /** The persons of these distinct ids, each with its properties as stored (JSON text) too. */
  async findByDistinctIds(teamId: number, distinctIds: readonly string[]) {
    const found = new Map<string, StoredPerson>();
    for (const part of chunks([...new Set(distinctIds)], CHUNK)) {
      const rows = await this.db
        .selectFrom('person_distinct_ids as d')
        .innerJoin('persons as p', 'p.id', 'd.person_id')
        .selectAll('p')
        .select('d.distinct_id')
        .where('d.team_id', '=', teamId)
        .where('d.distinct_id', 'in', part)
        .execute();
      for (const row of rows) found.set(row.distinct_id, { ...toPersonRecord(row), propertiesJson: row.properties });
    }
    return found;
  }

  async findById(teamId: number, id: number): Promise<PersonRecord | undefined> {
    const row = await this.db.selectFrom('persons').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
    return row && toPersonRecord(row);
  }

  async findByUuid(teamId: number, uuid: string): Promise<PersonRecord | undefined> {
    const row = await this.db.selectFrom('persons').selectAll().where('team_id', '=', teamId).where('uuid', '=', uuid).executeTakeFirst();
    return row && toPersonRecord(row);
  }

  /** The person a path names (integer id or UUID) in this project. */
  async findByKey(teamId: number, key: PersonKey): Promise<PersonRecord | undefined> {
    if (key.kind === 'uuid') return this.findByUuid(teamId, key.uuid);
    if (key.id > MAX_PERSON_ID) return undefined;
    return this.findById(teamId, key.id);
  }

  /** How many persons the project has. */
  async countInProject(teamId: number): Promise<number> {
    const row = await this.db
      .selectFrom('persons')
      .select((eb) => eb.fn.countAll<number | string>().as('total'))
      .where('team_id', '=', teamId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  /**
   * One page of the project's `total` persons in list order (newest first: created_at, then id).
   * Skipping rows costs in proportion to their number, so a page in the older half is found from
   * the oldest end; either way the page's ids come from the list-order index alone and only the
   * page's rows are read. `total` must be counted in the same snapshot.
   */
  async pageNewestFirst(teamId: number, total: number, page: { limit: number; offset: number }): Promise<PersonRecord[]> {
    const size = Math.min(page.limit, total - page.offset);
    if (size <= 0) return [];
    const fromOldest = page.offset + size / 2 > total / 2;
    const direction = fromOldest ? 'asc' : 'desc';
    const ids = this.db
      .selectFrom('persons')
      .select('id')
      .where('team_id', '=', teamId)
      .orderBy('created_at', direction)
      .orderBy('id', direction)
      .limit(size)
      .offset(fromOldest ? total - page.offset - size : page.offset);
    const rows = await this.db.selectFrom('persons').selectAll().where('id', 'in', ids).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    return rows.map(toPersonRecord);
  }

  /**
   * The persons of a project among these UUIDs, by UUID. UUIDs are unique across projects, so
   * they are looked up on their own index and the project is checked on the rows: with the project
   * in the WHERE clause, SQLite would rather walk all of the project's persons on its index.
   */
  async findByUuids(teamId: number, uuids: readonly string[]): Promise<Map<string, PersonRecord>> {
    const found = new Map<string, PersonRecord>();
    for (const part of chunks([...new Set(uuids)], CHUNK)) {
      const rows = await this.db.selectFrom('persons').selectAll().where('uuid', 'in', part).execute();
      for (const row of rows) if (Number(row.team_id) === teamId) found.set(row.uuid, toPersonRecord(row));
    }
    return found;
  }

  /** The UUIDs among these that a person already has (any project: UUIDs are unique). */
  async takenUuids(uuids: readonly string[]): Promise<Set<string>> {
    const taken = new Set<string>();
    for (const part of chunks(uuids, CHUNK)) {
      const rows = await this.db.selectFrom('persons').select('uuid').where('uuid', 'in', part).execute();
      for (const row of rows) taken.add(row.uuid);
    }
    return taken;
  }

  /** Inserts persons and returns their new integer ids by UUID. */
  async insertPersons(persons: readonly NewPerson[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    for (const part of chunks(persons, CHUNK)) {
      const rows = await this.db
        .insertInto('persons')
        .values(part.map((person) => personColumns(person, 0)))
        .returning(['id', 'uuid'])
        .execute();
      for (const row of rows) ids.set(row.uuid, Number(row.id));
    }
    return ids;
  }

  /**
   * Writes the mutable fields of existing persons in one statement per chunk. `created_at` is
   * written only for persons flagged with `createdAtChanged` (a merge can move it earlier): a
   * column in the SET list makes SQLite rewrite its index entry, which costs a third of an update.
   */
  async updatePersons(persons: readonly (PersonRecord & SerialisedProperties & { createdAtChanged?: boolean })[]): Promise<void> {
    const moved = persons.filter((person) => person.createdAtChanged === true);
    const kept = persons.filter((person) => person.createdAtChanged !== true);
    for (const [group, withCreatedAt] of [
      [kept, false],
      [moved, true],
    ] as const) {
      for (const part of chunks(group, CHUNK)) {
        await this.db
          .insertInto('persons')
          .values(part.map((person) => ({ id: person.id, ...personColumns(person, person.version) })))
          .onConflict((conflict) =>
            conflict.column('id').doUpdateSet((eb) => ({
              properties: eb.ref('excluded.properties'),
              is_identified: eb.ref('excluded.is_identified'),
              ...(withCreatedAt ? { created_at: eb.ref('excluded.created_at') } : {}),
              last_seen_at: eb.ref('excluded.last_seen_at'),
              version: eb.ref('excluded.version'),
            })),
          )
          .execute();
      }
    }
  }

  async insertDistinctIds(links: readonly { teamId: number; distinctId: string; personId: number }[]) {
    for (const part of chunks(links, CHUNK)) {
      await this.db
        .insertInto('person_distinct_ids')
        .values(part.map((link) => ({ team_id: link.teamId, distinct_id: link.distinctId, person_id: link.personId })))
        .execute();
    }
  }

  /** Distinct ids of a person in the order it gained them. */
  async distinctIdsOf(personId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('person_distinct_ids').select('distinct_id').where('person_id', '=', personId).orderBy('id').execute();
    return rows.map((row) => row.distinct_id);
  }

  async distinctIdsOfMany(personIds: readonly number[]): Promise<Map<number, string[]>> {
    const byPerson = new Map<number, string[]>();
    for (const part of chunks([...new Set(personIds)], CHUNK)) {
      const rows = await this.db.selectFrom('person_distinct_ids').select(['person_id', 'distinct_id']).where('person_id', 'in', part).orderBy('id').execute();
      for (const row of rows) {
        const list = byPerson.get(Number(row.person_id)) ?? [];
        list.push(row.distinct_id);
        byPerson.set(Number(row.person_id), list);
      }
    }
    return byPerson;
  }

  /** Moves every distinct id of one person to another, keeping their order after the target's own. */
  async moveDistinctIds(fromPersonId: number, toPersonId: number): Promise<string[]> {
    const moved = await this.distinctIdsOf(fromPersonId);
    await this.db.deleteFrom('person_distinct_ids').where('person_id', '=', fromPersonId).execute();
    const teamRow = await this.db.selectFrom('persons').select('team_id').where('id', '=', toPersonId).executeTakeFirstOrThrow();
    await this.insertDistinctIds(moved.map((distinctId) => ({ teamId: Number(teamRow.team_id), distinctId, personId: toPersonId })));
    return moved;
  }

  /** Re-links distinct ids of a project to another person (a split); they keep their link rows. */
  async relinkDistinctIds(teamId: number, distinctIds: readonly string[], toPersonId: number): Promise<void> {
    for (const part of chunks(distinctIds, CHUNK)) {
      await this.db.updateTable('person_distinct_ids').set({ person_id: toPersonId }).where('team_id', '=', teamId).where('distinct_id', 'in', part).execute();
    }
  }

  async deletePerson(personId: number): Promise<void> {
    await this.deletePersons([personId]);
  }

  /** Deletes persons and their distinct ids, a chunk per statement. */
  async deletePersons(personIds: readonly number[]): Promise<void> {
    for (const part of chunks(personIds, CHUNK)) {
      await this.db.deleteFrom('person_distinct_ids').where('person_id', 'in', part).execute();
      await this.db.deleteFrom('persons').where('id', 'in', part).execute();
    }
  }
}
