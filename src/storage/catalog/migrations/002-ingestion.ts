import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';
import { withSerialId } from './columns.js';

/** Persons, distinct ids, groups, definitions and the warehouse outbox. */
export const ingestionMigration: CatalogMigration = {
  async up(db: Kysely<unknown>, dialect) {
    await withSerialId(db.schema.createTable('persons'), dialect)
      .addColumn('uuid', 'text', (col) => col.notNull().unique())
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('properties', 'text', (col) => col.notNull())
      .addColumn('is_identified', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('last_seen_at', 'text')
      .addColumn('version', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('persons_team_created').on('persons').columns(['team_id', 'created_at']).execute();

    // The serial id keeps the order in which a person gained its ids (PostHog's base order).
    await withSerialId(db.schema.createTable('person_distinct_ids'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('distinct_id', 'text', (col) => col.notNull())
      .addColumn('person_id', 'integer', (col) => col.notNull().references('persons.id').onDelete('cascade'))
      .addUniqueConstraint('person_distinct_ids_team_distinct_id', ['team_id', 'distinct_id'])
      .execute();
    await db.schema.createIndex('person_distinct_ids_person').on('person_distinct_ids').column('person_id').execute();

    await db.schema
      .createTable('group_type_mappings')
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('group_type', 'text', (col) => col.notNull())
      .addColumn('group_type_index', 'integer', (col) => col.notNull())
      .addPrimaryKeyConstraint('group_type_mappings_pk', ['team_id', 'group_type'])
      .addUniqueConstraint('group_type_mappings_index', ['team_id', 'group_type_index'])
      .execute();

    await db.schema
      .createTable('groups')
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('group_type_index', 'integer', (col) => col.notNull())
      .addColumn('group_key', 'text', (col) => col.notNull())
      .addColumn('properties', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('version', 'integer', (col) => col.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('groups_pk', ['team_id', 'group_type_index', 'group_key'])
      .execute();

    await db.schema
      .createTable('event_definitions')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text')
      .addColumn('last_seen_at', 'text')
      .addColumn('updated_at', 'text')
      .addColumn('description', 'text')
      .addColumn('tags', 'text', (col) => col.notNull().defaultTo('[]'))
      .addColumn('verified', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('verified_at', 'text')
      .addColumn('verified_by_id', 'integer')
      .addColumn('hidden', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('owner_id', 'integer')
      .addUniqueConstraint('event_definitions_team_name', ['team_id', 'name'])
      .execute();

    // type: 1 event, 2 person, 3 group, 4 session. group_type_index is -1 when not a group property,
    // so the unique constraint holds on SQLite and PostgreSQL alike (NULLs are distinct in both).
    await db.schema
      .createTable('property_definitions')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('type', 'integer', (col) => col.notNull())
      .addColumn('group_type_index', 'integer', (col) => col.notNull().defaultTo(-1))
      .addColumn('property_type', 'text')
      .addColumn('is_numerical', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('tags', 'text', (col) => col.notNull().defaultTo('[]'))
      .addColumn('description', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text')
      .addUniqueConstraint('property_definitions_unique', ['team_id', 'type', 'group_type_index', 'name'])
      .execute();

    await db.schema
      .createTable('event_properties')
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('event', 'text', (col) => col.notNull())
      .addColumn('property', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('event_properties_pk', ['team_id', 'event', 'property'])
      .execute();

    // Changes to replicate into the warehouse, written in the same transaction as the change.
    // The id doubles as the replica row's version, so later writes always win.
    await withSerialId(db.schema.createTable('warehouse_outbox'), dialect)
      .addColumn('target', 'text', (col) => col.notNull())
      .addColumn('row', 'text', (col) => col.notNull())
      .execute();
  },
};
