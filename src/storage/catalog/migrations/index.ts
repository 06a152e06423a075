import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { CatalogDialect } from '../dialect.js';
import { accountsMigration } from './001-accounts.js';
import { ingestionMigration } from './002-ingestion.js';
import { pendingEventsMigration } from './003-pending-events.js';
import { personsApiMigration } from './004-persons-api.js';
import { actionsCohortsMigration } from './005-actions-cohorts.js';
import { personListIndexesMigration } from './006-person-list-indexes.js';
import { pendingEventBatchesMigration } from './007-pending-event-batches.js';
import { captureLogMigration } from './008-capture-log.js';
import { outboxRowBinaryMigration } from './009-outbox-row-binary.js';
import { ingestionFailuresMigration } from './010-ingestion-failures.js';
import { savedInsightsMigration } from './011-saved-insights.js';
import { accountsPlatformMigration } from './012-accounts-platform.js';
import { propertyDefinitionFlagsMigration } from './013-property-definition-flags.js';
import { personWriteEpochMigration } from './014-person-write-epoch.js';
import { legacyQueuesMigration } from './015-legacy-queues.js';

/** A catalog migration gets the dialect, so DDL that differs (auto-increment ids) can differ. */
export interface CatalogMigration {
  up(db: Kysely<unknown>, dialect: CatalogDialect): Promise<void>;
}

const migrations: Record<string, CatalogMigration> = {
  '001-accounts': accountsMigration,
  '002-ingestion': ingestionMigration,
  '003-pending-events': pendingEventsMigration,
  '004-persons-api': personsApiMigration,
  '005-actions-cohorts': actionsCohortsMigration,
  '006-person-list-indexes': personListIndexesMigration,
  '007-pending-event-batches': pendingEventBatchesMigration,
  '008-capture-log': captureLogMigration,
  '009-outbox-row-binary': outboxRowBinaryMigration,
  '010-ingestion-failures': ingestionFailuresMigration,
  '011-saved-insights': savedInsightsMigration,
  '012-accounts-platform': accountsPlatformMigration,
  '013-property-definition-flags': propertyDefinitionFlagsMigration,
  '014-person-write-epoch': personWriteEpochMigration,
  '015-legacy-queues': legacyQueuesMigration,
};

export function catalogMigrations(dialect: CatalogDialect): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return Object.fromEntries(
        Object.entries(migrations).map(([name, migration]) => [
          name,
          // biome-ignore lint/suspicious/noExplicitAny: migrations build the schema of their time, not today's typed one
          { up: (db: Kysely<any>) => migration.up(db, dialect) },
        ]),
      );
    },
  };
}
