import { v7 as uuidv7 } from 'uuid';
import { NotFound, ValidationError } from '../errors.js';
import type { Project } from '../projects/project.js';
import type { Catalog, CatalogTransaction } from '../storage/catalog/catalog.js';
import type { OutboxEntry, OutboxRelay } from '../storage/warehouse/outbox.js';
import type { OutboxRepository } from '../storage/warehouse/outbox-repository.js';
import { isoWithMicros } from '../util/iso-time.js';
import type { Mutex } from '../util/mutex.js';
import { activityDetail, PERSON_SCOPE, type ActivityChange, type ActivityLogRepository } from './activity-log-repository.js';
import type { DeletionTaskRepository } from './deletion-task-repository.js';
import type { PersonKey } from './person-id.js';
import { distinctIdReplicaEntry, personReplicaEntry } from './person-replica.js';
import type { PersonRepository } from './person-repository.js';
import { PersonWriteEpoch } from './person-write-epoch.js';
import { serializePerson, type ApiPerson } from './person-serializer.js';
import { MAX_PERSON_PROPERTIES_LENGTH, personUuidFor, personUuidFromName, type PersonRecord } from './person.js';
import type { SplitRequest } from './person-write-input.js';

/** Who asked for a write; recorded on the activity entry. */
export interface Actor {
  userId: number;
}

interface LoadedPerson {
  person: PersonRecord;
  distinctIds: string[];
}

/**
 * Person writes from the API: property changes, split and delete. PostHog routes property
 * writes through ingestion (a `$set` event) and answers before they apply; Tally writes the
 * catalog directly, under the same lock capture takes in this process and the person write
 * epoch's row lock across processes, so a write cannot interleave with an event's person
 * processing, and answers only once the warehouse replicas are in step.
 */
export class PersonWriteService {
  private readonly epoch: PersonWriteEpoch;

  constructor(
    private readonly catalog: Catalog,
    private readonly persons: PersonRepository,
    private readonly activity: ActivityLogRepository,
    private readonly deletionTasks: DeletionTaskRepository,
    private readonly outbox: OutboxRepository,
    private readonly relay: OutboxRelay,
    private readonly personWriteLock: Mutex,
  ) {
    this.epoch = new PersonWriteEpoch(catalog.db);
  }

  /** Merges `set` into the properties: listed keys overwrite, others stay (PATCH and update_property). */
  setProperties(project: Project, key: PersonKey, set: Record<string, unknown>, actor: Actor): Promise<ApiPerson> {
    return this.write(project, key, async (trx, { person, distinctIds }) => {
      const before = pick(person.properties, Object.keys(set));
      person.properties = { ...person.properties, ...set };
      if (JSON.stringify(person.properties).length > MAX_PERSON_PROPERTIES_LENGTH) {
        throw new ValidationError(
          'properties',
          `A person's properties may take up to ${MAX_PERSON_PROPERTIES_LENGTH} characters as JSON; these would take more.`,
        );
      }
      await this.saveProperties(trx, person);
      await this.log(trx, project, person, 'updated', actor, [propertiesChange(before, { ...set })]);
      return serializePerson({ ...person, distinctIds }, project);
    });
  }

  /** Removes one property key; a key the person does not have is not an error. */
  deleteProperty(project: Project, key: PersonKey, propertyKey: string, actor: Actor): Promise<ApiPerson> {
    return this.write(project, key, async (trx, { person, distinctIds }) => {
      const before = pick(person.properties, [propertyKey]);
      person.properties = { ...person.properties };
      delete person.properties[propertyKey];
      await this.saveProperties(trx, person);
      await this.log(trx, project, person, 'delete_property', actor, [propertiesChange(before, {})]);
      return serializePerson({ ...person, distinctIds }, project);
    });
  }

  /**
   * Gives every distinct id that leaves the person a new person of its own with no properties.
   * The original keeps its properties and the ids that stay.
   */
  split(project: Project, key: PersonKey, request: SplitRequest, actor: Actor): Promise<ApiPerson> {
    return this.write(project, key, async (trx, { person, distinctIds }) => {
      const leaving = leavingDistinctIds(distinctIds, request);
      const createdAt = isoWithMicros(Date.now());
      const uuids = await this.splitUuids(trx, project.id, leaving);
      const fresh = leaving.map((distinctId) => ({
        uuid: uuids.get(distinctId)!,
        teamId: project.id,
        properties: {},
        isIdentified: false,
        createdAt,
        lastSeenAt: null,
      }));
      const persons = this.persons.withTransaction(trx);
      const ids = await persons.insertPersons(fresh);
      const outbox: OutboxEntry[] = [];
      for (const [index, distinctId] of leaving.entries()) {
        const created = fresh[index]!;
        const id = ids.get(created.uuid)!;
        await persons.relinkDistinctIds(project.id, [distinctId], id);
        outbox.push(personReplicaEntry({ ...created, id, version: 0 }));
        outbox.push(distinctIdReplicaEntry(project.id, distinctId, created.uuid));
      }
      await this.outbox.withTransaction(trx).append(outbox);
      await this.log(trx, project, person, 'split_person', actor, [
        { type: PERSON_SCOPE, action: 'split', field: null, before: null, after: { distinct_ids: distinctIds, distinct_ids_to_split: leaving } },
      ]);
      const remaining = distinctIds.filter((distinctId) => !leaving.includes(distinctId));
      return serializePerson({ ...person, distinctIds: remaining }, project);
    });
  }

  /**
   * Deletes the person and releases its distinct ids (a later event with one of them creates a new
   * person). Events stay unless `deleteEvents` queues a deletion task for the scheduled job.
   */
  async delete(project: Project, key: PersonKey, deleteEvents: boolean, actor: Actor): Promise<void> {
    await this.write(project, key, async (trx, { person, distinctIds }) => {
      await this.persons.withTransaction(trx).deletePerson(person.id);
      await this.outbox
        .withTransaction(trx)
        .append([personReplicaEntry(person, true), ...distinctIds.map((distinctId) => distinctIdReplicaEntry(project.id, distinctId, person.uuid, true))]);
      await this.log(trx, project, person, 'deleted', actor, null);
      if (deleteEvents) {
        await this.deletionTasks.withTransaction(trx).queue({
          teamId: project.id,
          personUuid: person.uuid,
          distinctIds,
          createdAt: isoWithMicros(Date.now()),
          createdById: actor.userId,
        });
      }
    });
  }

  private async write<T>(project: Project, key: PersonKey, change: (trx: CatalogTransaction, loaded: LoadedPerson) => Promise<T>): Promise<T> {
    const result = await this.personWriteLock.run(() =>
      this.catalog.db.transaction().execute(async (trx) => {
        // First: the person is read once no other process's person write is under way.
        await this.epoch.claim(trx);
        const persons = this.persons.withTransaction(trx);
        const person = await persons.findByKey(project.id, key);
        if (!person) throw new NotFound();
        const distinctIds = await persons.distinctIdsOf(person.id);
        const result = await change(trx, { person, distinctIds });
        await this.relay.pruneApplied(trx);
        return result;
      }),
    );
    await this.relay.flush();
    return result;
  }

  private async saveProperties(trx: CatalogTransaction, person: PersonRecord): Promise<void> {
    person.version += 1;
    await this.persons.withTransaction(trx).updatePersons([person]);
    await this.outbox.withTransaction(trx).append([personReplicaEntry(person)]);
  }

  private async log(
    trx: CatalogTransaction,
    project: Project,
    person: PersonRecord,
    activity: string,
    actor: Actor,
    changes: ActivityChange[] | null,
  ): Promise<void> {
    await this.activity.withTransaction(trx).append({
      teamId: project.id,
      scope: PERSON_SCOPE,
      itemId: String(person.id),
      activity,
      userId: actor.userId,
      detail: activityDetail(person.uuid, changes),
    });
  }

  /** PostHog's deterministic UUID of a distinct id, or its `:split` variant when that one is taken. */
  private async splitUuids(trx: CatalogTransaction, teamId: number, distinctIds: readonly string[]): Promise<Map<string, string>> {
    const candidates = distinctIds.map((distinctId) => [personUuidFor(teamId, distinctId), personUuidFromName(`${teamId}:${distinctId}:split`)]);
    const taken = await this.persons.withTransaction(trx).takenUuids(candidates.flat());
    return new Map(distinctIds.map((distinctId, index) => [distinctId, candidates[index]!.find((uuid) => !taken.has(uuid)) ?? uuidv7()]));
  }
}

function pick(properties: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => Object.hasOwn(properties, key)).map((key) => [key, properties[key]]));
}

function propertiesChange(before: Record<string, unknown>, after: Record<string, unknown>): ActivityChange {
  return { type: PERSON_SCOPE, action: 'changed', field: 'properties', before, after };
}

/** The ids a split moves off, in the person's order; the request must name ids of this person. */
function leavingDistinctIds(distinctIds: readonly string[], request: SplitRequest): string[] {
  if (request.kind === 'keep') {
    const main = request.mainDistinctId ?? distinctIds[0];
    if (request.mainDistinctId !== null && !distinctIds.includes(request.mainDistinctId)) {
      throw new ValidationError('main_distinct_id', `"${request.mainDistinctId}" is not a distinct id of this person.`);
    }
    return distinctIds.filter((distinctId) => distinctId !== main);
  }
  const unknown = request.distinctIds.filter((distinctId) => !distinctIds.includes(distinctId));
  if (unknown.length > 0) {
    throw new ValidationError('distinct_ids_to_split', `These distinct ids do not belong to this person: ${unknown.join(', ')}.`);
  }
  if (request.distinctIds.length === distinctIds.length) {
    throw new ValidationError('distinct_ids_to_split', 'A split must leave the person at least one distinct id.');
  }
  return distinctIds.filter((distinctId) => request.distinctIds.includes(distinctId));
}
