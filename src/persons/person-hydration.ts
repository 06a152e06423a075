import type { Project } from '../projects/project.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { LISTED_PERSON_DETAILS } from './person-list-query.js';
import { serializePerson, type ApiPerson } from './person-serializer.js';

/** The live persons among some UUIDs, with their integer id and creation time. */
const LIVE_PERSON_KEYS = `
  SELECT toString(id) AS person_uuid, argMax(person_id, version) AS person_number, toString(argMax(created_at, version)) AS created_text
  FROM persons
  WHERE team_id = {team_id:Int64} AND id IN {uuids:Array(UUID)}
  GROUP BY id
  HAVING argMax(is_deleted, version) = 0`;

interface KeyRow {
  person_uuid: string;
  person_number: string | number;
  created_text: string;
}

interface DetailRow {
  person_uuid: string;
  current_properties: string;
  identified: number | string;
  distinct_ids: string[] | null;
}

/**
 * Turns the person UUIDs an analysis query found into contract Persons, read from the warehouse
 * replicas. UUIDs of persons deleted since their events were ingested are left out, so callers
 * can report them as `missing_persons`.
 */
export class PersonHydrator {
  constructor(private readonly warehouse: Warehouse) {}

  async byUuids(project: Project, uuids: readonly string[]): Promise<Map<string, ApiPerson>> {
    const found = new Map<string, ApiPerson>();
    if (uuids.length === 0) return found;
    const params = { team_id: project.id, uuids: [...new Set(uuids)] };
    const keys = await this.warehouse.query<KeyRow>(LIVE_PERSON_KEYS, params);
    if (keys.length === 0) return found;
    const details = new Map(
      (await this.warehouse.query<DetailRow>(LISTED_PERSON_DETAILS, { ...params, uuids: keys.map((key) => key.person_uuid) })).map(
        (row) => [row.person_uuid, row],
      ),
    );
    for (const key of keys) {
      const detail = details.get(key.person_uuid);
      found.set(
        key.person_uuid,
        serializePerson(
          {
            id: Number(key.person_number),
            uuid: key.person_uuid,
            properties: detail ? (JSON.parse(detail.current_properties) as Record<string, unknown>) : {},
            isIdentified: Number(detail?.identified ?? 0) === 1,
            createdAt: `${key.created_text.replace(' ', 'T')}Z`,
            distinctIds: detail?.distinct_ids ?? [],
          },
          project,
        ),
      );
    }
    return found;
  }
}
