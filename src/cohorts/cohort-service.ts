import type { ActionRepository } from '../actions/action-repository.js';
import { ApiError, NotFound, ValidationError } from '../errors.js';
import type { StoredKey } from '../keys/key-repository.js';
import type { PersonRepository } from '../persons/person-repository.js';
import { serializePerson, type ApiPerson } from '../persons/person-serializer.js';
import type { Project } from '../projects/project.js';
import type { OutboxRelay } from '../storage/warehouse/outbox.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { EMPTY_FILTERS, type Cohort } from './cohort.js';
import { parseCohortFilters } from './cohort-filter-parser.js';
import { referencedActions, referencedCohorts } from './cohort-filter-model.js';
import { parseCohortInput, type CohortBody, type CohortInput } from './cohort-input.js';
import { CohortMembersQuery } from './cohort-members-query.js';
import type { CohortChanges, CohortRepository } from './cohort-repository.js';
import type { CohortSqlCompiler } from './cohort-sql.js';
import { csvDistinctIds } from './csv-distinct-ids.js';
import { legacyGroupsToFilters } from './legacy-groups.js';

/** PostHog's cap on one add_persons_to_static_cohort call. */
const MAX_PERSONS_PER_ADD = 10_000;

export interface CohortWithCount {
  cohort: Cohort;
  count: number | null;
}

/**
 * The cohorts of a project: CRUD with validated definitions (no loops, no unknown cohorts or
 * actions), static membership, and member reads computed in the warehouse at request time.
 */
export class CohortService {
  constructor(
    private readonly cohorts: CohortRepository,
    private readonly actions: ActionRepository,
    private readonly persons: PersonRepository,
    private readonly compiler: CohortSqlCompiler,
    private readonly warehouse: Warehouse,
    private readonly relay: OutboxRelay,
  ) {}

  async list(project: Project, page: { limit: number; offset: number }) {
    const { total, cohorts } = await this.cohorts.list(project.id, page);
    const withCounts: CohortWithCount[] = [];
    for (const cohort of cohorts) withCounts.push({ cohort, count: await this.count(cohort) });
    return { total, cohorts: withCounts };
  }

  async get(project: Project, id: number): Promise<Cohort> {
    const cohort = await this.cohorts.find(project.id, id);
    if (!cohort) throw new NotFound();
    return cohort;
  }

  async withCount(cohort: Cohort): Promise<CohortWithCount> {
    return { cohort, count: await this.count(cohort) };
  }

  async create(project: Project, key: StoredKey, body: CohortBody): Promise<Cohort> {
    const input = parseCohortInput(body);
    const isStatic = input.isStatic ?? false;
    const definition = isStatic ? { filters: EMPTY_FILTERS, groups: [] } : (this.definition(input) ?? { filters: EMPTY_FILTERS, groups: [] });
    if (!isStatic) await this.checkReferences(project, definition.filters, null);
    const memberIds = isStatic && input.csv ? await this.personsFromCsv(project, input.csv) : [];
    const cohort = await this.cohorts.create({
      teamId: project.id,
      name: input.name ?? null,
      description: input.description ?? '',
      filters: definition.filters,
      groups: definition.groups,
      isStatic,
      createdById: key.user.id,
    });
    await this.addMembers(cohort, memberIds);
    return cohort;
  }

  async update(project: Project, id: number, body: CohortBody): Promise<Cohort> {
    const current = await this.get(project, id);
    const input = parseCohortInput(body);
    const changes: CohortChanges = { name: input.name, description: input.description, isStatic: input.isStatic, deleted: input.deleted };
    const isStatic = input.isStatic ?? current.isStatic;
    const definition = isStatic ? null : this.definition(input);
    if (definition) {
      await this.checkReferences(project, definition.filters, current.id);
      changes.filters = definition.filters;
      changes.groups = definition.groups;
    }
    if (input.csv && !isStatic) throw new ValidationError('csv', 'Only static cohorts take a CSV of members.');
    const memberIds = input.csv ? await this.personsFromCsv(project, input.csv) : [];
    const updated = await this.cohorts.update(project.id, id, changes);
    if (!updated) throw new NotFound();
    await this.addMembers(updated, memberIds);
    return updated;
  }

  async delete(project: Project, id: number): Promise<void> {
    await this.get(project, id);
    await this.cohorts.update(project.id, id, { deleted: true });
  }

  /** `PATCH /add_persons_to_static_cohort/`: person UUIDs of this project join the static cohort. */
  async addPersons(project: Project, id: number, personIds: unknown): Promise<void> {
    const cohort = await this.get(project, id);
    if (!cohort.isStatic) throw new ValidationError(null, 'Can only add users to static cohorts');
    if (!Array.isArray(personIds)) throw new ValidationError('person_ids', 'person_ids must be a list');
    if (personIds.length === 0) throw new ValidationError('person_ids', 'person_ids cannot be empty');
    if (personIds.length > MAX_PERSONS_PER_ADD) throw new ValidationError('person_ids', 'List size exceeds limit');
    const uuids: string[] = [];
    for (const personId of personIds) {
      if (typeof personId !== 'string') continue;
      const person = await this.persons.findByUuid(project.id, personId.toLowerCase());
      if (person) uuids.push(person.uuid);
    }
    if (uuids.length === 0) throw new ValidationError('person_ids', 'No valid users to add to cohort');
    await this.addMembers(cohort, uuids);
  }

  /** The cohort's members now, newest first, in the person shape. */
  async members(project: Project, id: number, page: { limit: number; offset: number }): Promise<{ total: number; persons: ApiPerson[] }> {
    const query = await CohortMembersQuery.build(this.compiler, await this.get(project, id));
    const count = query.count();
    const [totalRow] = await this.warehouse.query<{ total: string | number }>(count.sql, count.params);
    const pageQuery = query.page(page.limit, page.offset);
    const rows = await this.warehouse.query<{ person_uuid: string }>(pageQuery.sql, pageQuery.params);
    const records = [];
    for (const row of rows) {
      const person = await this.persons.findByUuid(project.id, row.person_uuid);
      if (person) records.push(person);
    }
    const distinctIds = await this.persons.distinctIdsOfMany(records.map((person) => person.id));
    return {
      total: Number(totalRow?.total ?? 0),
      persons: records.map((person) => serializePerson({ ...person, distinctIds: distinctIds.get(person.id) ?? [] }, project)),
    };
  }

  /** The live cohorts the person (by UUID) belongs to now. */
  async cohortsOfPerson(project: Project, personUuid: string): Promise<CohortWithCount[]> {
    const { cohorts } = await this.cohorts.list(project.id);
    const found: CohortWithCount[] = [];
    for (const cohort of cohorts) {
      const query = (await CohortMembersQuery.build(this.compiler, cohort)).contains(personUuid);
      const [row] = await this.warehouse.query<{ is_member: number | string }>(query.sql, query.params);
      if (Number(row?.is_member ?? 0) === 1) found.push(await this.withCount(cohort));
    }
    return found;
  }

  /** Members now; null when the definition no longer compiles (a cohort or action it uses was deleted). */
  private async count(cohort: Cohort): Promise<number | null> {
    try {
      const query = (await CohortMembersQuery.build(this.compiler, cohort)).count();
      const [row] = await this.warehouse.query<{ total: string | number }>(query.sql, query.params);
      return Number(row?.total ?? 0);
    } catch (error) {
      if (error instanceof ApiError) return null;
      throw error;
    }
  }

  /** The definition a body sets: `filters` wins over legacy `groups`; null when it sets neither. */
  private definition(input: CohortInput): { filters: Cohort['filters']; groups: unknown[] } | null {
    if (input.filters !== undefined) {
      parseCohortFilters(input.filters);
      return { filters: input.filters as Cohort['filters'], groups: [] };
    }
    if (input.groups !== undefined) {
      const filters = legacyGroupsToFilters(input.groups);
      parseCohortFilters(filters);
      return { filters, groups: input.groups as unknown[] };
    }
    return null;
  }

  /**
   * Every cohort and action the definition names must exist in the project, and following the
   * cohort references must never lead back to `selfId` (PostHog's loop check).
   */
  private async checkReferences(project: Project, filters: Cohort['filters'], selfId: number | null): Promise<void> {
    const root = parseCohortFilters(filters);
    for (const actionId of referencedActions(root)) {
      if (!(await this.actions.find(project.id, actionId))) throw new ValidationError('filters', `Action ${actionId} does not exist.`);
    }
    const seen = new Set<number>();
    const pending = referencedCohorts(root);
    while (pending.length > 0) {
      const id = pending.pop()!;
      if (id === selfId) throw new ValidationError(null, 'Cohorts cannot reference other cohorts in a loop.');
      if (seen.has(id)) continue;
      seen.add(id);
      const nested = await this.cohorts.find(project.id, id);
      if (!nested) throw new ValidationError('filters', 'Invalid Cohort ID in filter');
      if (!nested.isStatic) pending.push(...referencedCohorts(parseCohortFilters(nested.filters)));
    }
  }

  private async personsFromCsv(project: Project, csv: Buffer): Promise<string[]> {
    const found = await this.persons.findByDistinctIds(project.id, csvDistinctIds(csv));
    return [...found.values()].map((person) => person.uuid);
  }

  private async addMembers(cohort: Cohort, personUuids: string[]): Promise<void> {
    if (personUuids.length === 0) return;
    await this.cohorts.addStaticMembers(cohort.teamId, cohort.id, personUuids);
    await this.relay.flush();
  }
}
