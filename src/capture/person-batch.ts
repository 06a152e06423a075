import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import { appendToOutbox, type OutboxEntry } from '../storage/warehouse/outbox.js';
import { PERSON_UUID_NAMESPACE, type PersonRecord } from '../persons/person.js';
import type { PersonRepository } from '../persons/person-repository.js';
import { distinctIdReplicaEntry, personReplicaEntry } from '../persons/person-replica.js';

/** A person while a batch is processed; `id` is null until a new person is inserted. */
export interface PersonState extends Omit<PersonRecord, 'id'> {
  id: number | null;
  /** Distinct ids gained in this batch, not yet in the catalog. */
  newDistinctIds: string[];
  dirty: boolean;
}

export function personUuidFor(teamId: number, distinctId: string): string {
  return uuidv5(`${teamId}:${distinctId}`, PERSON_UUID_NAMESPACE);
}

/**
 * The persons one capture request touches, held in memory while its events are processed in
 * order, then written back in a few multi-row statements with their outbox entries. Rare
 * operations (merges) write through immediately after flushing what is pending.
 */
export class PersonBatch {
  private readonly byDistinctId = new Map<string, PersonState | null>();
  private readonly touched = new Set<PersonState>();
  private readonly outbox: OutboxEntry[] = [];

  constructor(
    private readonly db: CatalogDb,
    private readonly teamId: number,
    private readonly persons: PersonRepository,
  ) {}

  async preload(distinctIds: readonly string[]): Promise<void> {
    const wanted = distinctIds.filter((id) => !this.byDistinctId.has(id));
    if (wanted.length === 0) return;
    const found = await this.persons.findByDistinctIds(this.db, this.teamId, wanted);
    const states = new Map<number, PersonState>();
    for (const distinctId of wanted) {
      const record = found.get(distinctId);
      if (!record) {
        this.byDistinctId.set(distinctId, null);
        continue;
      }
      let state = states.get(record.id) ?? this.stateOfLoadedPerson(record.id);
      if (!state) {
        state = { ...record, newDistinctIds: [], dirty: false };
        states.set(record.id, state);
      }
      this.byDistinctId.set(distinctId, state);
    }
  }

  private stateOfLoadedPerson(id: number): PersonState | undefined {
    for (const state of this.byDistinctId.values()) if (state && state.id === id) return state;
    return undefined;
  }

  async personFor(distinctId: string): Promise<PersonState | null> {
    if (!this.byDistinctId.has(distinctId)) await this.preload([distinctId]);
    return this.byDistinctId.get(distinctId) ?? null;
  }

  create(distinctIds: string[], properties: Record<string, unknown>, isIdentified: boolean, createdAt: string): PersonState {
    const state: PersonState = {
      id: null,
      uuid: personUuidFor(this.teamId, distinctIds[0]!),
      teamId: this.teamId,
      properties,
      isIdentified,
      createdAt,
      lastSeenAt: null,
      version: 0,
      newDistinctIds: [...distinctIds],
      dirty: true,
    };
    for (const distinctId of distinctIds) this.byDistinctId.set(distinctId, state);
    this.touched.add(state);
    return state;
  }

  addDistinctId(person: PersonState, distinctId: string): void {
    person.newDistinctIds.push(distinctId);
    this.byDistinctId.set(distinctId, person);
    this.markDirty(person);
  }

  markDirty(person: PersonState): void {
    person.dirty = true;
    this.touched.add(person);
  }

  /** Merges `other` into `into` (ingestion spec A3): properties, earliest creation, all ids. */
  async merge(into: PersonState, other: PersonState): Promise<void> {
    await this.flush();
    const intoId = into.id!;
    const otherId = other.id!;
    const moved = await this.persons.moveDistinctIds(this.db, otherId, intoId);
    await this.persons.deletePerson(this.db, otherId);
    into.properties = { ...other.properties, ...into.properties };
    if (other.createdAt < into.createdAt) into.createdAt = other.createdAt;
    into.isIdentified = true;
    into.version = Math.max(into.version, other.version);
    for (const distinctId of moved) {
      this.byDistinctId.set(distinctId, into);
      this.outbox.push(distinctIdReplicaEntry(this.teamId, distinctId, into.uuid));
    }
    for (const [distinctId, state] of this.byDistinctId) if (state === other) this.byDistinctId.set(distinctId, into);
    this.outbox.push(personReplicaEntry({ ...other, id: otherId }, true));
    this.touched.delete(other);
    this.markDirty(into);
  }

  /** Writes every pending change and its outbox entries. */
  async flush(): Promise<void> {
    const created = [...this.touched].filter((person) => person.id === null);
    if (created.length > 0) {
      const taken = await this.persons.takenUuids(
        this.db,
        created.map((person) => person.uuid),
      );
      const seen = new Set<string>();
      for (const person of created) {
        if (taken.has(person.uuid) || seen.has(person.uuid)) person.uuid = uuidv7();
        seen.add(person.uuid);
      }
      const ids = await this.persons.insertPersons(this.db, created);
      for (const person of created) {
        person.id = ids.get(person.uuid)!;
        person.dirty = false;
      }
    }
    const updated = [...this.touched].filter((person) => person.dirty);
    for (const person of updated) person.version += 1;
    await this.persons.updatePersons(
      this.db,
      updated.map((person) => ({ ...person, id: person.id! })),
    );
    const links = [...this.touched].flatMap((person) =>
      person.newDistinctIds.map((distinctId) => ({ teamId: this.teamId, distinctId, personId: person.id! })),
    );
    await this.persons.insertDistinctIds(this.db, links);
    for (const person of this.touched) {
      this.outbox.push(personReplicaEntry({ ...person, id: person.id! }));
      for (const distinctId of person.newDistinctIds) {
        this.outbox.push(distinctIdReplicaEntry(this.teamId, distinctId, person.uuid));
      }
      person.newDistinctIds = [];
      person.dirty = false;
    }
    this.touched.clear();
    await appendToOutbox(this.db, this.outbox.splice(0));
  }
}
