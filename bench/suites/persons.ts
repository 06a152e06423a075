import type { GeneratedEvent } from '../generator.js';
import { loadedServer } from '../loaded-server.js';
import { Random } from '../random.js';
import { comparisons, loadMeasurement, peakMeasurements, type Measurement } from '../report.js';
import type { SuiteOptions } from './suite.js';
import { timeApiAgainstRaw, timeFresh, type ApiRawCase } from '../timing.js';
import { callApi } from '../api-client.js';

const PLANS = ['free', 'pro', 'team', 'enterprise'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'JP', 'CA'];

/** One `$set` event per person, creating it with ten properties. */
function* personEvents(count: number): Generator<GeneratedEvent> {
  const random = new Random(11);
  const start = Date.now() - count * 1000;
  for (let index = 0; index < count; index++) {
    yield {
      event: '$set',
      distinct_id: `person-${index}`,
      uuid: random.uuidAt(start + index * 1000),
      timestamp: new Date(start + index * 1000).toISOString(),
      properties: {
        $set: {
          email: `person${index}@example.com`,
          name: `Person ${index}`,
          plan: random.pick(PLANS),
          country: random.pick(COUNTRIES),
          age: 18 + random.int(60),
          seats: 1 + random.int(50),
          signed_up: new Date(start + index * 1000).toISOString(),
          verified: random.next() < 0.5,
          company: `company-${random.int(5000)}`,
          score: Math.round(random.next() * 1000) / 10,
        },
      },
    };
  }
}

const CURRENT_PERSONS = `SELECT id, argMax(person_id, version) AS number, argMax(created_at, version) AS created,
    argMax(properties, version) AS props FROM persons WHERE team_id = 1 GROUP BY id HAVING argMax(is_deleted, version) = 0`;

function rawPage(where: string, offset: number): string[] {
  const page = `SELECT id, number, created, props FROM (${CURRENT_PERSONS}) WHERE ${where}
    ORDER BY created DESC, number DESC LIMIT 100 OFFSET ${offset}`;
  return [
    page,
    `SELECT count() FROM (${CURRENT_PERSONS}) WHERE ${where}`,
    `SELECT person_id, groupArray(distinct_id) FROM person_distinct_ids WHERE team_id = 1
       AND person_id IN (SELECT id FROM (${page})) GROUP BY person_id`,
  ];
}

/**
 * The persons suite: persons with ten properties through capture, then list pages at three
 * offsets, a property filter and an email search, through the API and as raw warehouse SQL,
 * fresh from the load and settled.
 */
export async function personsSuite(options: SuiteOptions): Promise<Measurement[]> {
  const persons = options.events;
  const last = Math.max(0, persons - 100);
  const middle = Math.floor(persons / 2);
  const searched = `person${Math.floor(persons / 3)}@example.com`;
  const cases = [
    { name: 'list, offset 0', url: '/api/projects/1/persons/?limit=100', raw: rawPage('1', 0) },
    { name: `list, offset ${middle}`, url: `/api/projects/1/persons/?limit=100&offset=${middle}`, raw: rawPage('1', middle) },
    { name: `list, offset ${last}`, url: `/api/projects/1/persons/?limit=100&offset=${last}`, raw: rawPage('1', last) },
    {
      name: 'list, person property filter',
      url: `/api/projects/1/persons/?limit=100&properties=${encodeURIComponent(JSON.stringify([{ key: 'plan', value: 'pro', type: 'person' }]))}`,
      raw: rawPage(`JSONExtractString(props, 'plan') = 'pro'`, 0),
    },
    {
      name: 'search by email',
      url: `/api/projects/1/persons/?limit=100&search=${encodeURIComponent(searched)}`,
      raw: rawPage(`positionCaseInsensitive(JSONExtractString(props, 'email'), '${searched}') > 0`, 0),
    },
  ];
  const timed: ApiRawCase[] = cases.map((query) => ({
    name: query.name,
    api: async (running) => {
      const response = await callApi(running, 'GET', query.url);
      if (response.status !== 200) throw new Error(`${query.name}: ${response.status} ${response.text}`);
    },
    raw: async (warehouse) => {
      for (const sql of query.raw) await warehouse.query(sql);
    },
  }));
  const { server, seconds, loadPeakMb, reusedFrom, fresh } = await loadedServer(
    'persons',
    persons,
    options.dataDir,
    () => personEvents(persons),
    'creating persons via capture',
    (running) => timeFresh(running, timed),
  );
  const settled = await timeApiAgainstRaw(server, timed);
  const measurements: Measurement[] = [
    loadMeasurement('persons', `create ${persons} persons through capture`, persons / seconds, reusedFrom),
    ...comparisons('persons', timed, settled, fresh),
  ];
  await (options.dataDir ? server.stop() : server.dispose());
  measurements.push(...peakMeasurements('persons', loadPeakMb, settled.peakMb, reusedFrom));
  return measurements;
}
