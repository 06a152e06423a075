import type { PropertyColumns } from '../insights/property-filters.js';

/**
 * What the property-filter compiler reads in queries over the current persons, aliased `person`
 * (`id` the UUID, `properties` when selected). Only person and cohort filters can apply there;
 * `readsProperties` tells the query whether it must select the properties at all.
 */
export class PersonRowColumns implements PropertyColumns {
  readsProperties = false;
  readonly personId = 'person.id';

  get personProperties(): string {
    this.readsProperties = true;
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
