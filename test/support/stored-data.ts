import { loadConfig } from '../../src/config.js';
import { openCatalog } from '../../src/storage/catalog/catalog.js';
import { openStores } from '../../src/stores.js';

export interface StoredEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, any>;
  timestamp: string;
  person_id: string;
  person_properties: Record<string, any>;
  person_mode: string;
  elements_chain: string;
  $group_0: string;
  $group_1: string;
}

export interface StoredPerson {
  id: number;
  uuid: string;
  properties: Record<string, any>;
  is_identified: boolean;
  created_at: string;
  distinct_ids: string[];
}

export interface StoredData {
  events: StoredEvent[];
  persons: StoredPerson[];
  /** The warehouse replica's current persons, by UUID. */
  replicaPersons: Map<string, { properties: Record<string, any>; person_id: number }>;
  /** The warehouse replica's current distinct-id links. */
  replicaDistinctIds: Map<string, string>;
  groups: { group_type_index: number; group_key: string; properties: Record<string, any> }[];
  groupTypes: Record<string, number>;
  outboxBacklog: number;
}

/**
 * Reads what a stopped server left in its data directory, through the same store interfaces
 * the server uses. Until the persons and trends APIs exist, capture tests verify storage here.
 */
export async function readStoredData(server: { dataDir: string; env: Record<string, string> }, teamId = 1): Promise<StoredData> {
  const config = loadConfig({ ...server.env, TALLY_DATA_DIR: server.dataDir });
  // Counted before opening the stores, whose start-up would replay and prune the outbox.
  const bare = await openCatalog(config);
  const outboxBacklog = (await bare.db.selectFrom('warehouse_outbox').select('id').execute()).length;
  await bare.close();
  const stores = await openStores(config);
  try {
    const { catalog, warehouse } = stores.context;
    const events = (
      await warehouse.query<Record<string, any>>(
        `SELECT toString(uuid) AS uuid, event, distinct_id, properties, toString(timestamp) AS timestamp,
                toString(person_id) AS person_id, person_properties, person_mode, elements_chain, \`$group_0\`, \`$group_1\`
         FROM events WHERE team_id = {team_id:Int64} ORDER BY timestamp, uuid`,
        { team_id: teamId },
      )
    ).map((row) => ({
      ...row,
      properties: JSON.parse(row.properties),
      person_properties: JSON.parse(row.person_properties),
    })) as StoredEvent[];
    const personRows = await catalog.db.selectFrom('persons').selectAll().where('team_id', '=', teamId).orderBy('id').execute();
    const links = await catalog.db.selectFrom('person_distinct_ids').selectAll().where('team_id', '=', teamId).orderBy('id').execute();
    const persons = personRows.map((row) => ({
      id: Number(row.id),
      uuid: row.uuid,
      properties: JSON.parse(row.properties),
      is_identified: Number(row.is_identified) === 1,
      created_at: row.created_at,
      distinct_ids: links.filter((link) => link.person_id === row.id).map((link) => link.distinct_id),
    }));
    const replicaPersonRows = await warehouse.query<{ id: string; properties: string; person_id: string }>(
      `SELECT toString(id) AS id, properties, person_id FROM (
         SELECT id, argMax(properties, version) AS properties, argMax(person_id, version) AS person_id,
                argMax(is_deleted, version) AS deleted
         FROM persons WHERE team_id = {team_id:Int64} GROUP BY id) WHERE deleted = 0`,
      { team_id: teamId },
    );
    const replicaLinkRows = await warehouse.query<{ distinct_id: string; person_id: string }>(
      `SELECT distinct_id, toString(person_id) AS person_id FROM (
         SELECT distinct_id, argMax(person_id, version) AS person_id, argMax(is_deleted, version) AS deleted
         FROM person_distinct_ids WHERE team_id = {team_id:Int64} GROUP BY distinct_id) WHERE deleted = 0`,
      { team_id: teamId },
    );
    const groupRows = await catalog.db.selectFrom('groups').selectAll().where('team_id', '=', teamId).execute();
    const typeRows = await catalog.db.selectFrom('group_type_mappings').selectAll().where('team_id', '=', teamId).execute();
    return {
      events,
      persons,
      replicaPersons: new Map(replicaPersonRows.map((row) => [row.id, { properties: JSON.parse(row.properties), person_id: Number(row.person_id) }])),
      replicaDistinctIds: new Map(replicaLinkRows.map((row) => [row.distinct_id, row.person_id])),
      groups: groupRows.map((row) => ({
        group_type_index: Number(row.group_type_index),
        group_key: row.group_key,
        properties: JSON.parse(row.properties),
      })),
      groupTypes: Object.fromEntries(typeRows.map((row) => [row.group_type, Number(row.group_type_index)])),
      outboxBacklog,
    };
  } finally {
    await stores.close();
  }
}
