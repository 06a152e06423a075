import { GroupTypeRegistry } from '../../src/capture/group-type-registry.js';
import type { BatchServices } from '../../src/capture/ingestion-batch.js';
import { IngestionWarningRepository } from '../../src/capture/ingestion-warning-repository.js';
import { PersonCache } from '../../src/capture/person-cache.js';
import { DefinitionRecorder } from '../../src/definitions/definition-recorder.js';
import { EventDefinitionRepository } from '../../src/definitions/event-definition-repository.js';
import { PropertyDefinitionRepository } from '../../src/definitions/property-definition-repository.js';
import { GroupRepository } from '../../src/groups/group-repository.js';
import { PersonRepository } from '../../src/persons/person-repository.js';
import type { Catalog } from '../../src/storage/catalog/catalog.js';
import { OutboxRepository } from '../../src/storage/warehouse/outbox-repository.js';
import { TimeSlices } from '../../src/util/yield.js';

/** What an ingestion batch works with, on the catalog itself, with fresh caches unless given. */
export function batchServices(catalog: Catalog, using: Partial<Pick<BatchServices, 'persons' | 'personCache'>> = {}): BatchServices {
  return {
    groups: new GroupRepository(catalog.db, catalog.dialect),
    outbox: new OutboxRepository(catalog.db, catalog.dialect),
    groupTypes: new GroupTypeRegistry(),
    persons: using.persons ?? new PersonRepository(catalog.db),
    personCache: using.personCache ?? new PersonCache(),
    slices: new TimeSlices(5),
    definitions: new DefinitionRecorder(
      catalog.db,
      new EventDefinitionRepository(catalog.db, catalog.dialect),
      new PropertyDefinitionRepository(catalog.db, catalog.dialect),
    ),
    warnings: new IngestionWarningRepository(catalog.db, catalog.dialect),
  };
}
