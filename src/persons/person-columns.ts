import type { PropertyColumns } from '../query/property-filters.js';

/**
 * What the property-filter compiler reads in queries over the current persons, aliased `person`
 * (`id` the UUID; `properties` and materialized property columns when selected). Only person and
 * cohort filters can apply there; `readColumns` tells the query what it must select.
 */
export class PersonRowColumns implements PropertyColumns {
  /** The replica columns the compiled filters read besides the id: `properties`, `pmat_…`. */
  readonly readColumns = new Set<string>();
  readonly personId = 'person.id';

  /** `materialized`: key → column of the person properties stored by key on the replica. */
  constructor(private readonly materialized: ReadonlyMap<string, string> = new Map()) {}

  materializedPersonProperty(key: string): string | undefined {
    const column = this.materialized.get(key);
    if (column === undefined) return undefined;
    this.readColumns.add(column);
    return `person.${column}`;
  }

  get personProperties(): string {
    this.readColumns.add('properties');
    return 'person.properties';
  }

  get eventProperties(): string {
    return unavailable('event properties');
  }

  get elementsChain(): string {
    return unavailable('elements');
  }

  get sessionDuration(): string {
    return unavailable('sessions');
  }

  groupProperties(): string {
    return unavailable('group properties');
  }
}

function unavailable(what: string): never {
  throw new Error(`a person query has no ${what}; only person and cohort filters reach it`);
}
