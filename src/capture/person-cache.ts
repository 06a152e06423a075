/**
 * Distinct ids held at a time. Each costs a map entry plus, shared by a person's ids, the person's
 * fields and stored properties text: a few hundred bytes, so tens of megabytes at the bound.
 */
const MAX_CACHED_DISTINCT_IDS = 200_000;

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
 * It holds only what is known committed (the consumer tells it after each commit) and is
 * coherent only while the consumer alone changes persons: the consumer empties it whenever
 * another holder of the person write lock (the persons API) or a failure came between. As the
 * lock itself, it assumes one Tally process writes the catalog's persons.
 */
export class PersonCache {
  /** By team, then distinct id; a map's order is the order ids were first remembered. */
  private readonly teams = new Map<number, Map<string, CachedPerson>>();
  private size = 0;

  constructor(private readonly maxDistinctIds = MAX_CACHED_DISTINCT_IDS) {}

  get(teamId: number, distinctId: string): CachedPerson | undefined {
    return this.teams.get(teamId)?.get(distinctId);
  }

  /** Records committed facts: the person of each distinct id, or none (null). */
  remember(teamId: number, persons: Iterable<[distinctId: string, person: CachedPerson | null]>): void {
    let team = this.teams.get(teamId);
    if (!team) {
      team = new Map();
      this.teams.set(teamId, team);
    }
    const before = team.size;
    for (const [distinctId, person] of persons) {
      if (person === null) team.delete(distinctId);
      else team.set(distinctId, person);
    }
    this.size += team.size - before;
    this.evictOldest();
  }

  clear(): void {
    this.teams.clear();
    this.size = 0;
  }

  /** Forgets the ids first remembered longest ago, a team at a time, until within the bound. */
  private evictOldest(): void {
    for (const [teamId, team] of this.teams) {
      for (const distinctId of team.keys()) {
        if (this.size <= this.maxDistinctIds) return;
        team.delete(distinctId);
        this.size -= 1;
      }
      if (team.size === 0) this.teams.delete(teamId);
    }
  }
}
