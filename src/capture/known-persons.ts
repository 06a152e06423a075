import type { PersonState } from './person-batch.js';

/** Distinct ids remembered per project: the active users of a busy hour, about 100 MB at most. */
const CAPACITY = 100_000;

/**
 * The persons that earlier batches committed, by project and distinct id, so that the next batch
 * neither loads nor parses them again: on steady traffic nearly every event's person is one of
 * them. The states are the batches' own objects, so this is only valid while the ingestion
 * consumer alone changes persons: it is cleared when a batch fails (its changes to the states
 * were never committed) and whenever anyone else held the person write lock in between.
 */
export class KnownPersons {
  private readonly byTeam = new Map<number, Map<string, PersonState>>();

  forTeam(teamId: number): ReadonlyMap<string, PersonState> {
    return this.byTeam.get(teamId) ?? new Map();
  }

  /** Remembers committed states, the most recent last; the least recently remembered go first. */
  remember(teamId: number, states: Iterable<[string, PersonState]>): void {
    let known = this.byTeam.get(teamId);
    if (!known) {
      known = new Map();
      this.byTeam.set(teamId, known);
    }
    for (const [distinctId, state] of states) {
      known.delete(distinctId);
      known.set(distinctId, state);
    }
    for (const distinctId of known.keys()) {
      if (known.size <= CAPACITY) break;
      known.delete(distinctId);
    }
  }

  clear(): void {
    this.byTeam.clear();
  }
}
