import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { sendBatch } from '../support/capture.js';
import { TallyServer, tempDataDir } from '../support/tally.js';

/**
 * The upgrade guard: a data directory written by an earlier build (test/fixtures/<name>/, made by
 * test/fixtures/make-data-dir.ts) opens, migrates and answers what it held, processes the requests
 * it had acknowledged but not processed, and takes new ones. The fixture is embedded stores only,
 * so the passes that put every test server on PostgreSQL skip it.
 */
const FIXTURE = 'data-dir-0.1.0-2026-11-27';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE_DIR = path.join(ROOT, 'test/fixtures', FIXTURE);

interface FixtureManifest {
  projects: { id: number; name: string; token: string }[];
  keys: { label: string; value: string; scopes: string[]; scopedTeams: number[] | null }[];
}

const EMBEDDED_ONLY = process.env.TEST_E2E_POSTGRES_URL || process.env.TEST_E2E_CLICKHOUSE_URL ? 'a kept data directory is embedded stores only' : false;

const COUNT_BY_EVENT = { kind: 'HogQLQuery', query: 'SELECT event, count() FROM events GROUP BY event ORDER BY event' };

describe(`upgrade: the data directory kept from ${FIXTURE}`, { skip: EMBEDDED_ONLY }, () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'fixture.json'), 'utf8')) as FixtureManifest;
  const [bootstrapKey, insightsKey] = manifest.keys;
  const [project1, project2] = manifest.projects;
  const dataDir = tempDataDir('tally-upgrade-');
  const server = new TallyServer(dataDir);

  before(async () => {
    // The warehouse links its tables' data by relative symlinks: copied as they are, they point into the copy.
    fs.cpSync(path.join(FIXTURE_DIR, 'data-dir'), dataDir, { recursive: true, verbatimSymlinks: true });
    for (const table of fs.readdirSync(path.join(dataDir, 'warehouse/data/default'))) {
      const target = fs.realpathSync(path.join(dataDir, 'warehouse/data/default', table));
      assert.ok(target.startsWith(fs.realpathSync(dataDir)), `${table} -> ${target} lies outside the copy`);
    }
    await server.start();
    server.personalApiKey = bootstrapKey!.value;
    server.projectToken = project1!.token;
  });
  after(() => server.dispose());

  const countByEvent = async (projectId: number) =>
    (await server.bodyOf<{ results: [string, number][] }>('POST', `/api/projects/${projectId}/query/`, 200, { body: { query: COUNT_BY_EVENT } })).results;

  test('opens as it was: no new catalog is bootstrapped', () => {
    assert.doesNotMatch(server.stdout, /created a new catalog/);
  });

  test('its personal API keys still authenticate, with their scopes and projects', async () => {
    const bootstrap = await server.bodyOf('GET', '/api/personal_api_keys/@current/');
    assert.deepEqual([bootstrap.label, bootstrap.scopes, bootstrap.scoped_teams], ['Bootstrap key', ['*'], []]);
    const scoped = await server.bodyOf('GET', '/api/personal_api_keys/@current/', 200, { key: insightsKey!.value });
    assert.deepEqual([scoped.label, scoped.scopes, scoped.scoped_teams], ['Read insights', ['insight:read', 'query:read'], [1]]);
    assert.equal((await server.get('/api/projects/1/insights/', { key: insightsKey!.value })).status, 200);
    assert.equal((await server.get('/api/projects/1/persons/', { key: insightsKey!.value })).status, 403, 'no person:read');
    assert.equal((await server.get('/api/projects/2/insights/', { key: insightsKey!.value })).status, 403, 'project 1 only');
    assert.equal((await server.get('/api/projects/1/insights/', { key: 'phx_not_a_key_of_this_catalog' })).status, 401);
  });

  test('persons keep their merged distinct ids and properties, and the waiting requests changed them', async () => {
    const persons = await server.bodyOf<{ results: Record<string, unknown>[] }>('GET', '/api/projects/1/persons/');
    assert.deepEqual(
      persons.results.map(({ id, uuid, distinct_ids, properties, is_identified, created_at }) => ({
        id,
        uuid,
        distinct_ids,
        properties,
        is_identified,
        created_at,
      })),
      [
        {
          id: 5,
          uuid: 'b49ef7ca-2e42-54ef-9005-c98c418d1360',
          distinct_ids: ['visitor-5'],
          properties: {
            $initial_current_url: 'https://shop.example/pricing',
            $current_url: 'https://shop.example/pricing',
            $creator_event_uuid: '01900000-0000-7000-8000-0000000d0002',
            trial_source: 'pricing',
          },
          is_identified: false,
          created_at: '2024-06-07T10:00:00.000000Z',
        },
        {
          id: 3,
          uuid: '63b19123-b0e1-51f4-b698-07589f61c6c8',
          distinct_ids: ['visitor-3'],
          properties: {
            $initial_current_url: 'https://shop.example/blog',
            $current_url: 'https://shop.example/blog',
            $creator_event_uuid: '01900000-0000-7000-8000-00000000d001',
            source: 'blog',
          },
          is_identified: false,
          created_at: '2024-06-06T07:00:00.000000Z',
        },
        {
          id: 2,
          uuid: '5c25ff8b-a5a2-586e-8f57-5a01f518a34a',
          distinct_ids: ['user-grace', 'grace-mobile'],
          properties: {
            $initial_current_url: 'https://shop.example/',
            email: 'grace@example.com',
            // `free` when the server stopped; a waiting request set it.
            plan: 'pro',
            $current_url: 'https://shop.example/',
            $creator_event_uuid: '01900000-0000-7000-8000-00000000b001',
          },
          is_identified: true,
          created_at: '2024-06-03T10:00:00.000000Z',
        },
        {
          id: 1,
          uuid: '9f2230e0-b29e-5e48-a762-1e45a67a65ed',
          distinct_ids: ['anon-ada', 'user-ada'],
          properties: {
            $initial_browser: 'Firefox',
            $initial_current_url: 'https://shop.example/',
            $browser: 'Firefox',
            $current_url: 'https://shop.example/pricing',
            $creator_event_uuid: '01900000-0000-7000-8000-00000000a001',
            first_campaign: 'spring',
            email: 'ada@example.com',
            name: 'Ada',
            plan: 'pro',
          },
          is_identified: true,
          created_at: '2024-06-03T09:00:00.000001Z',
        },
      ],
    );
    // Through the warehouse replica (person property column `email` included) as well as the catalog.
    const byEmail = await server.bodyOf<{ results: { id: number }[] }>('GET', '/api/projects/1/persons/?email=ada%40example.com');
    assert.deepEqual(
      byEmail.results.map((person) => person.id),
      [1],
    );
    const ofEvent = await server.bodyOf<{ results: { distinct_id: string; person: { distinct_ids: string[] } }[] }>(
      'GET',
      '/api/projects/1/events/?event=purchase&include_person=true&orderBy=["timestamp"]',
    );
    assert.deepEqual(
      ofEvent.results.map((event) => [event.distinct_id, event.person.distinct_ids[0]]),
      [
        ['user-ada', 'anon-ada'],
        ['grace-mobile', 'user-grace'],
        ['user-grace', 'user-grace'],
      ],
    );
  });

  test('events per event and project, the waiting ones included', async () => {
    assert.deepEqual(await countByEvent(1), [
      ['$create_alias', 1],
      ['$groupidentify', 1],
      ['$identify', 1],
      ['$pageview', 5],
      ['newsletter_opened', 1],
      ['purchase', 3],
      ['signed_up', 1],
      ['trial_started', 1],
    ]);
    assert.deepEqual(await countByEvent(2), [
      ['$pageview', 1],
      ['purchase', 1],
    ]);
    const group = await server.bodyOf('GET', '/api/projects/1/groups/find/?group_type_index=0&group_key=acme');
    assert.deepEqual(group, {
      group_type_index: 0,
      group_key: 'acme',
      group_properties: { name: 'Acme', seats: 5 },
      created_at: '2024-06-03T09:04:00.000000Z',
    });
  });

  test('event and property definitions, with what was written to them', async () => {
    const events = await server.bodyOf<{ results: Record<string, any>[] }>('GET', '/api/projects/1/event_definitions/?ordering=name');
    assert.deepEqual(
      events.results.map((definition) => definition.name),
      ['$create_alias', '$groupidentify', '$identify', '$pageview', 'newsletter_opened', 'purchase', 'signed_up', 'trial_started'],
    );
    const purchase = events.results.find((definition) => definition.name === 'purchase')!;
    assert.deepEqual(
      [purchase.description, purchase.tags, purchase.verified, purchase.verified_by?.email],
      ['A completed order', ['revenue'], true, 'admin@localhost'],
    );
    const amount = await server.bodyOf<{ results: Record<string, any>[] }>('GET', '/api/projects/1/property_definitions/?type=event&search=amount');
    assert.deepEqual(
      amount.results.map((definition) => [definition.name, definition.property_type, definition.is_numerical, definition.description, definition.tags]),
      [['amount', 'Numeric', true, 'Order total', ['revenue']]],
    );
    const personProperties = await server.bodyOf<{ results: { name: string }[] }>('GET', '/api/projects/1/property_definitions/?type=person&search=plan');
    assert.deepEqual(
      personProperties.results.map((definition) => definition.name),
      ['plan'],
    );
  });

  test('the action, cohorts, saved insight, dashboard and annotation', async () => {
    const actions = await server.bodyOf<{ results: Record<string, any>[] }>('GET', '/api/projects/1/actions/');
    assert.deepEqual(
      actions.results.map((action) => [action.id, action.name, action.steps.map((step: Record<string, unknown>) => [step.event, step.properties])]),
      [
        [
          1,
          'Bought or signed up',
          [
            ['purchase', [{ key: 'currency', value: 'EUR', operator: 'exact', type: 'event' }]],
            ['signed_up', []],
          ],
        ],
      ],
    );
    const cohorts = await server.bodyOf<{ results: Record<string, any>[] }>('GET', '/api/projects/1/cohorts/');
    assert.deepEqual(
      cohorts.results.map((cohort) => [cohort.id, cohort.name, cohort.is_static, cohort.count]),
      [
        [2, 'Hand picked', true, 1],
        [1, 'Pro plan', false, 2],
      ],
    );
    const members = async (id: number) =>
      (await server.bodyOf<{ results: { distinct_ids: string[] }[] }>('GET', `/api/projects/1/cohorts/${id}/persons/`)).results.map(
        (person) => person.distinct_ids,
      );
    assert.deepEqual(await members(1), [
      ['user-grace', 'grace-mobile'],
      ['anon-ada', 'user-ada'],
    ]);
    assert.deepEqual(await members(2), [['visitor-3']]);

    const insights = await server.bodyOf<{ results: Record<string, any>[] }>('GET', '/api/projects/1/insights/?refresh=blocking');
    assert.equal(insights.results.length, 1);
    const insight = insights.results[0]!;
    assert.deepEqual(
      [insight.name, insight.description, insight.dashboards, insight.query.source.dateRange],
      ['Daily pageviews', 'June 2024', [1], { date_from: '2024-06-01', date_to: '2024-06-10' }],
    );
    assert.deepEqual(
      insight.result.map((series: Record<string, unknown>) => [series.label, series.count, series.data]),
      [['$pageview', 5, [0, 0, 3, 0, 0, 1, 1, 0, 0, 0]]],
    );
    const byShortId = await server.bodyOf<{ results: { id: number }[] }>('GET', `/api/projects/1/insights/?short_id=${insight.short_id}`, 200, {
      key: insightsKey!.value,
    });
    assert.deepEqual(
      byShortId.results.map((found) => found.id),
      [insight.id],
    );

    const dashboard = await server.bodyOf('GET', '/api/projects/1/dashboards/1/');
    assert.deepEqual([dashboard.name, dashboard.tiles.map((tile: { insight: { name: string } }) => tile.insight.name)], ['Shop', ['Daily pageviews']]);
    const annotations = await server.bodyOf<{ results: Record<string, any>[] }>('GET', '/api/projects/1/annotations/');
    assert.deepEqual(
      annotations.results.map((annotation) => [annotation.content, annotation.date_marker, annotation.scope]),
      [['Spring campaign', '2024-06-03T00:00:00.000Z', 'project']],
    );
  });

  test('new captures are stored after the upgrade, in both projects, and after a restart', async () => {
    await sendBatch(server, [
      { event: 'purchase', distinct_id: 'grace-mobile', timestamp: '2024-06-08T09:00:00Z', properties: { amount: 5 } },
      { event: 'upgraded', distinct_id: 'newcomer', timestamp: '2024-06-08T10:00:00Z', properties: { $set: { plan: 'pro' } } },
    ]);
    const second = await server.request('POST', '/batch/', {
      key: null,
      body: { api_key: project2!.token, batch: [{ event: 'upgraded', distinct_id: 'other-1', timestamp: '2024-06-08T10:00:00Z' }] },
    });
    assert.equal(second.status, 200, second.text);
    await server.restart();

    const counts = new Map(await countByEvent(1));
    assert.deepEqual([counts.get('purchase'), counts.get('upgraded')], [4, 1]);
    assert.deepEqual(await countByEvent(2), [
      ['$pageview', 1],
      ['purchase', 1],
      ['upgraded', 1],
    ]);
    const newcomer = await server.bodyOf<{ results: { id: number; properties: Record<string, unknown> }[] }>(
      'GET',
      '/api/projects/1/persons/?distinct_id=newcomer',
    );
    assert.deepEqual(
      newcomer.results.map((person) => [person.id, person.properties.plan]),
      [[6, 'pro']],
    );
    const cohort = await server.bodyOf('GET', '/api/projects/1/cohorts/1/');
    assert.equal(cohort.count, 3, 'the dynamic cohort takes the new person in');
  });
});
