import type { CatalogTransaction } from '../storage/catalog/catalog.js';
import type { OutboxEntry } from '../storage/warehouse/outbox.js';
import { personUuidFor, personUuidFromName, type PersonRecord } from '../persons/person.js';
import type { PersonRepository } from '../persons/person-repository.js';
import { distinctIdReplicaEntry, personReplicaEntry } from '../persons/person-replica.js';
import { mergeProperties } from '../util/merge-properties.js';
import type { CachedPerson, PersonCache } from './person-cache.js';

/** A person while a batch is processed; `id` is null until a new person is inserted. */
export interface PersonState extends Omit<PersonRecord, 'id'> {
  id: number | null;
  dirty: boolean;
  /** `properties` as JSON, kept while they do not change (null once they do). */
  propertiesJson: string | null;
  /** A merge moved `createdAt` earlier than the stored value. */
  createdAtChanged: boolean;
  /** A stored person as the batch loaded it: what the catalog still holds unless it is written. Null for a new person. */
  loadedAs: CachedPerson | null;
}

/** A stored person as the batch starts it, built field by field (see `mergeProperties` on why not a spread). */
function personState(stored: CachedPerson, properties: Record<string, unknown>): PersonState {
  return {
    id: stored.id,
    uuid: stored.uuid,
    teamId: stored.teamId,
    properties,
    isIdentified: stored.isIdentified,
    createdAt: stored.createdAt,
    lastSeenAt: stored.lastSeenAt,
    version: stored.version,
    dirty: false,
    // What the catalog holds is JSON.stringify's text, which a parse and a stringify give back unchanged.
    propertiesJson: stored.propertiesJson,
    createdAtChanged: false,
    loadedAs: stored,
  };
}

/** A person's fields as the catalog holds them; `propertiesJson` is its stored properties text. */
function cachedPerson(person: Omit<CachedPerson, 'id' | 'propertiesJson'> & { id: number | null }, propertiesJson: string): CachedPerson {
  return {
    id: person.id!,
    uuid: person.uuid,
    teamId: person.teamId,
    propertiesJson,
    isIdentified: person.isIdentified,
    createdAt: person.createdAt,
    lastSeenAt: person.lastSeenAt,
    version: person.version,
  };
}

/** A distinct id linked to a person in this batch, in the order the links were made. */
interface NewLink {
  distinctId: string;
  person: PersonState;
  /** Moved on by a merge: a later link of the same id takes its place. */
  moved: boolean;
}

/**
 * The persons a batch of events touches, held in memory while the events are processed in
 * order; nothing is written until `write`, which the caller runs in one transaction after the
 * batch is complete. Until then the catalog is only read, so a batch that fails (or a process
 * that dies) leaves it as it was, and processing the same events again gives the same result:
 * new persons get UUIDs derived from their data, never random ones.
 */
export class PersonBatch {
  private readonly byDistinctId = new Map<string, PersonState | null>();
  private readonly byId = new Map<number, PersonState>();
  private readonly touched = new Set<PersonState>();
  private readonly links: NewLink[] = [];
  /** The links each person gained in this batch, its own and those of persons merged into it. */
  private readonly linksOf = new Map<PersonState, NewLink[]>();
  /** Stored persons merged into another person: deleted when the batch is written. */
  private readonly mergedAway: PersonState[] = [];
  private readonly takenUuids = new Set<string>();
  /** The usual UUID of a new person for each distinct id found without one. */
  private readonly newPersonUuids = new Map<string, string>();
  /** The distinct ids the cache answered: it holds them already, unless their person is written. */
  private readonly answeredByCache = new Set<string>();
  /** Stored persons' distinct ids as the catalog holds them, read ahead for the persons a merge may take. */
  private readonly storedIdsOf = new Map<number, string[]>();

  /** `persons` reads the catalog; the batch's writes go through it bound to the caller's transaction. */
  constructor(
    private readonly teamId: number,
    private readonly persons: PersonRepository,
    private readonly cache: PersonCache,
  ) {}

  /**
   * Loads the persons of these distinct ids, from the cache or else the catalog, and which UUIDs
   * new persons for the others cannot take; and the stored distinct ids of the persons of
   * `mergingIds` (ids of events that merge persons), which a merge moves: read together here
   * rather than one statement per merge.
   */
  async preload(distinctIds: readonly string[], mergingIds: readonly string[] = []): Promise<void> {
    await this.loadPersons(distinctIds);
    const unread = new Set<number>();
    for (const distinctId of mergingIds) {
      const id = this.byDistinctId.get(distinctId)?.id;
      if (id !== undefined && id !== null && !this.storedIdsOf.has(id)) unread.add(id);
    }
    if (unread.size === 0) return;
    const read = await this.persons.distinctIdsOfMany([...unread]);
    for (const id of unread) this.storedIdsOf.set(id, read.get(id) ?? []);
  }

  private async loadPersons(distinctIds: readonly string[]): Promise<void> {
    const uncached: string[] = [];
    for (const distinctId of new Set(distinctIds)) {
      if (this.byDistinctId.has(distinctId)) continue;
      const cached = this.cache.get(this.teamId, distinctId);
      if (cached) {
        this.byDistinctId.set(
          distinctId,
          this.stateOf(cached, () => JSON.parse(cached.propertiesJson) as Record<string, unknown>),
        );
        this.answeredByCache.add(distinctId);
      } else {
        uncached.push(distinctId);
      }
    }
    if (uncached.length === 0) return;
    const found = await this.persons.findByDistinctIds(this.teamId, uncached);
    const unknown: string[] = [];
    for (const distinctId of uncached) {
      const record = found.get(distinctId);
      if (!record) {
        const uuid = personUuidFor(this.teamId, distinctId);
        this.byDistinctId.set(distinctId, null);
        this.newPersonUuids.set(distinctId, uuid);
        unknown.push(uuid);
        continue;
      }
      this.byDistinctId.set(
        distinctId,
        this.stateOf(cachedPerson(record, record.propertiesJson), () => record.properties),
      );
    }
    for (const uuid of await this.persons.takenUuids(unknown)) this.takenUuids.add(uuid);
  }

  /** The batch's state of a stored person: the one already made for another of its ids, or a new one. */
  private stateOf(stored: CachedPerson, properties: () => Record<string, unknown>): PersonState {
    let state = this.byId.get(stored.id);
    if (!state) {
      state = personState(stored, properties());
      this.byId.set(stored.id, state);
    }
    return state;
  }

  async personFor(distinctId: string): Promise<PersonState | null> {
    if (!this.byDistinctId.has(distinctId)) await this.preload([distinctId]);
    return this.byDistinctId.get(distinctId) ?? null;
  }

  /** A new person for distinct ids that have none; `creatorEventUuid` makes its UUID unique when the usual one is taken. */
  create(distinctIds: string[], properties: Record<string, unknown>, isIdentified: boolean, createdAt: string, creatorEventUuid: string): PersonState {
    let uuid = this.newPersonUuids.get(distinctIds[0]!) ?? personUuidFor(this.teamId, distinctIds[0]!);
    if (this.takenUuids.has(uuid)) uuid = personUuidFromName(`${this.teamId}:${distinctIds[0]!}:${creatorEventUuid}`);
    this.takenUuids.add(uuid);
    const state: PersonState = {
      id: null,
      uuid,
      teamId: this.teamId,
      properties,
      isIdentified,
      createdAt,
      lastSeenAt: null,
      version: 0,
      dirty: true,
      propertiesJson: null,
      createdAtChanged: false,
      loadedAs: null,
    };
    for (const distinctId of distinctIds) this.link(distinctId, state);
    this.touched.add(state);
    return state;
  }

  addDistinctId(person: PersonState, distinctId: string): void {
    this.link(distinctId, person);
    this.markDirty(person);
  }

  markDirty(person: PersonState): void {
    person.dirty = true;
    this.touched.add(person);
  }

  /** Merges `other` into `into` as PostHog merges persons: properties, earliest creation, all ids. */
  async merge(into: PersonState, other: PersonState): Promise<void> {
    // The merged person's ids follow the survivor's own, stored ones first, as they were gained.
    if (other.id !== null) {
      const stored = this.storedIdsOf.get(other.id) ?? (await this.persons.distinctIdsOf(other.id));
      for (const distinctId of stored) this.link(distinctId, into);
      this.mergedAway.push(other);
    }
    for (const link of this.linksOf.get(other) ?? []) {
      link.moved = true;
      this.link(link.distinctId, into);
    }
    this.linksOf.delete(other);
    into.properties = mergeProperties(other.properties, into.properties);
    into.propertiesJson = null;
    if (other.createdAt < into.createdAt) {
      into.createdAt = other.createdAt;
      into.createdAtChanged = true;
    }
    into.isIdentified = true;
    into.version = Math.max(into.version, other.version);
    this.touched.delete(other);
    this.markDirty(into);
  }

  /** Writes every change of the batch and returns the replica changes, in the caller's transaction. */
  async write(trx: CatalogTransaction): Promise<OutboxEntry[]> {
    const persons = this.persons.withTransaction(trx);
    const outbox: OutboxEntry[] = [];
    for (const person of this.touched) person.propertiesJson ??= JSON.stringify(person.properties);
    const created = [...this.touched].filter((person) => person.id === null);
    if (created.length > 0) {
      const ids = await persons.insertPersons(created);
      for (const person of created) {
        person.id = ids.get(person.uuid)!;
        person.dirty = false;
      }
    }
    const updated = [...this.touched].filter((person) => person.dirty);
    for (const person of updated) person.version += 1;
    await persons.updatePersons(updated.map((person) => ({ ...person, id: person.id! })));
    await persons.deletePersons(this.mergedAway.map((person) => person.id!));
    for (const person of this.mergedAway) outbox.push(personReplicaEntry({ ...person, id: person.id! }, true));
    // A link that is not moved belongs to a person that survives the batch.
    const links = this.links.filter((link) => !link.moved);
    await persons.insertDistinctIds(links.map((link) => ({ teamId: this.teamId, distinctId: link.distinctId, personId: link.person.id! })));
    for (const person of this.touched) outbox.push(personReplicaEntry({ ...person, id: person.id! }));
    for (const link of links) outbox.push(distinctIdReplicaEntry(this.teamId, link.distinctId, link.person.uuid));
    return outbox;
  }

  /**
   * Tells the cache what the catalog holds for every distinct id the batch looked up or linked,
   * once `write` is committed: a written person as written, any other as it was loaded (changes
   * that are not written, such as a new last-seen hour, stay out). Ids the cache answered for a
   * person not written it holds already.
   */
  rememberCommitted(): void {
    const gone = new Set(this.mergedAway);
    const committed = new Map<PersonState, CachedPerson>();
    const persons: [string, CachedPerson | null][] = [];
    for (const [distinctId, state] of this.byDistinctId) {
      if (state === null || state.id === null || gone.has(state)) {
        persons.push([distinctId, null]);
        continue;
      }
      const written = this.touched.has(state);
      if (!written && this.answeredByCache.has(distinctId)) continue;
      let stored = committed.get(state);
      if (!stored) {
        stored = written ? cachedPerson(state, state.propertiesJson!) : state.loadedAs!;
        committed.set(state, stored);
      }
      persons.push([distinctId, stored]);
    }
    this.cache.remember(
      this.teamId,
      persons,
      this.mergedAway.map((person) => person.id!),
    );
  }

  private link(distinctId: string, person: PersonState): void {
    const link: NewLink = { distinctId, person, moved: false };
    this.links.push(link);
    this.byDistinctId.set(distinctId, person);
    const links = this.linksOf.get(person);
    if (links) links.push(link);
    else this.linksOf.set(person, [link]);
  }
}
