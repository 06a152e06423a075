/**
 * Distinct ids held at a time. Each costs a map entry plus, shared by a person's ids, the person's
 * fields and stored properties text: a few hundred bytes for typical persons, so tens of megabytes
 * at the bound.
 */
const MAX_CACHED_DISTINCT_IDS = 200_000;

/**
 * Characters of stored properties text held at a time, summed over the cached persons. Person
 * properties may take up to half a megabyte each, so the id bound alone would let a project with
 * large persons fill gigabytes; this one keeps the cache's memory bounded whatever they hold, and
 * is above what the id bound lets typical persons (a few hundred characters) reach.
 */
const MAX_CACHED_PROPERTIES_CHARS = 64 * 1024 * 1024;

/** A person exactly as the catalog holds it; never changed once made (a batch works on copies). */
export interface CachedPerson {
  readonly id: number;
  readonly uuid: string;
  readonly teamId: number;
  /** The stored properties text. */
  readonly propertiesJson: string;
  readonly isIdentified: boolean;
  readonly createdAt: string;
  readonly lastSeenAt: string | null;
  readonly version: number;
}

/**
 * The persons of recently processed distinct ids, as committed, so a batch finds most of its
 * persons without reading the catalog: the same users send event after event, and their lookup
 * was a third of the catalog time of ingestion.
 *
 * Distinct ids map to person ids, and each person is held once: a batch that writes a person
 * through one of its ids thereby updates what every other cached id of that person finds, which
 * a copy per id would leave stale (and the next write through such an id would undo the first).
 *
 * It holds only what is known committed (the consumer tells it after each commit) and is
 * coherent only while the consumer alone changes persons: the consumer empties it whenever
 * another holder of the person write lock (the persons API) or a failure came between. As the
 * lock itself, it assumes one Tally process writes the catalog's persons.
 */
export class PersonCache {
  /** By team, then distinct id, the person id; a map's order is the order ids were first remembered. */
  private readonly teams = new Map<number, Map<string, number>>();
  /** By person id (unique across projects), the person and how many cached ids name it. */
  private readonly persons = new Map<number, { person: CachedPerson; ids: number }>();
  private size = 0;
  /** Characters of properties text of the persons held. */
  private propertiesChars = 0;

  constructor(
    private readonly maxDistinctIds = MAX_CACHED_DISTINCT_IDS,
    private readonly maxPropertiesChars = MAX_CACHED_PROPERTIES_CHARS,
  ) {}

  get(teamId: number, distinctId: string): CachedPerson | undefined {
    const personId = this.teams.get(teamId)?.get(distinctId);
    return personId === undefined ? undefined : this.persons.get(personId)?.person;
  }

  /**
   * Records committed facts: the person of each distinct id, or none (null), and the persons that
   * no longer exist (merged away), which no id finds any more.
   */
  remember(teamId: number, links: Iterable<[distinctId: string, person: CachedPerson | null]>, deletedPersonIds: Iterable<number> = []): void {
    let team = this.teams.get(teamId);
    if (!team) {
      team = new Map();
      this.teams.set(teamId, team);
    }
    for (const personId of deletedPersonIds) this.forget(personId);
    for (const [distinctId, person] of links) {
      const previous = team.get(distinctId);
      if (previous !== undefined && previous !== person?.id) this.release(previous);
      if (person === null) {
        if (previous !== undefined) {
          team.delete(distinctId);
          this.size -= 1;
        }
        continue;
      }
      if (previous === undefined) this.size += 1;
      team.set(distinctId, person.id);
      const held = this.persons.get(person.id);
      if (!held) {
        this.persons.set(person.id, { person, ids: 1 });
        this.propertiesChars += person.propertiesJson.length;
      } else {
        this.propertiesChars += person.propertiesJson.length - held.person.propertiesJson.length;
        held.person = person;
        if (previous !== person.id) held.ids += 1;
      }
    }
    this.evictOldest();
  }

  clear(): void {
    this.teams.clear();
    this.persons.clear();
    this.size = 0;
    this.propertiesChars = 0;
  }

  /** One cached id fewer names this person; with none left, the person goes too. */
  private release(personId: number): void {
    const held = this.persons.get(personId);
    if (!held) return;
    if (held.ids <= 1) this.forget(personId);
    else held.ids -= 1;
  }

  private forget(personId: number): void {
    const held = this.persons.get(personId);
    if (!held) return;
    this.persons.delete(personId);
    this.propertiesChars -= held.person.propertiesJson.length;
  }

  private withinBounds(): boolean {
    return this.size <= this.maxDistinctIds && this.propertiesChars <= this.maxPropertiesChars;
  }

  /** Forgets the ids first remembered longest ago, a team at a time, until within both bounds. */
  private evictOldest(): void {
    for (const [teamId, team] of this.teams) {
      for (const [distinctId, personId] of team) {
        if (this.withinBounds()) return;
        team.delete(distinctId);
        this.release(personId);
        this.size -= 1;
      }
      if (team.size === 0) this.teams.delete(teamId);
    }
  }
}
