import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery } from '../support/actors.js';
import { addSecondOrganization } from '../support/accounts.js';
import { ERRORS, TallyServer } from '../support/tally.js';

/**
 * `GET|POST /insights/path/`: PostHog's legacy paths tests (posthog/queries/test/test_paths.py,
 * ee/clickhouse/queries/test/test_paths.py) restated with their numbers, each dataset in a
 * project of its own, captured through /batch. Edges are checked against their actors: the
 * persons of an edge (path_start_key + path_end_key) are as many as its value whenever each of
 * them walked it in one session.
 */

type Captured = Record<string, unknown>;

/** `2012-01-01 03:21:34` → an ISO timestamp in UTC. */
function utc(time: string): string {
  return `${time.replace(' ', 'T')}Z`;
}

function view(distinctId: string, url: string, time: string, properties: Record<string, unknown> = {}): Captured {
  return { event: '$pageview', distinct_id: distinctId, timestamp: utc(time), properties: { $current_url: url, ...properties } };
}

function screen(distinctId: string, name: string, time: string, properties: Record<string, unknown> = {}): Captured {
  return { event: '$screen', distinct_id: distinctId, timestamp: utc(time), properties: { $screen_name: name, ...properties } };
}

function custom(distinctId: string, event: string, time: string, properties: Record<string, unknown> = {}): Captured {
  return { event, distinct_id: distinctId, timestamp: utc(time), properties };
}

/** Two distinct ids of one person, linked before any dataset's events. */
function alias(distinctId: string, other: string): Captured {
  return { event: '$create_alias', distinct_id: distinctId, timestamp: '2011-01-01T00:00:00Z', properties: { alias: other } };
}

/** `times[i]` minutes after midnight on 2021-05-01, as PostHog's fixtures space events. */
function may1(minute: number, second = 0): string {
  return `2021-05-01 00:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}`;
}

function multipleDropoffs(): Captured[] {
  const events: Captured[] = [];
  for (let i = 0; i < 5; i++) {
    const user = `user_${i}`;
    events.push(
      custom(user, 'step one', may1(0)),
      custom(user, 'between_step_1_a', may1(1)),
      custom(user, 'between_step_1_b', may1(2)),
      custom(user, 'between_step_1_c', may1(3)),
      custom(user, 'step two', may1(4)),
      custom(user, 'step three', may1(5)),
    );
  }
  for (let i = 5; i < 15; i++) {
    const user = `user_${i}`;
    events.push(
      custom(user, 'step one', may1(0)),
      custom(user, 'between_step_1_a', may1(1)),
      custom(user, 'between_step_1_b', may1(2)),
      custom(user, 'step two', may1(3)),
      custom(user, 'between_step_2_a', may1(4, 20)),
      custom(user, 'between_step_2_b', may1(5, 40)),
    );
  }
  for (let i = 15; i < 35; i++) {
    const user = `user_${i}`;
    events.push(custom(user, 'step one', may1(0)), custom(user, 'step dropoff1', may1(1)), custom(user, 'step dropoff2', may1(2)));
    if (i % 2 === 0) events.push(custom(user, 'step branch', may1(3)));
  }
  return events;
}

const URL_EVENTS: Captured[] = [
  { event: '$set', distinct_id: 'person_1', timestamp: '2011-01-01T00:00:00Z', properties: { $set: { email: 'test@posthog.com' } } },
  alias('person_2a', 'person_2b'),
  view('fake', '/', '2012-01-01 03:21:34'),
  view('fake', '/about', '2012-01-01 03:21:35'),
  view('person_1', '/', '2012-01-14 03:21:34'),
  view('person_1', '/about', '2012-01-14 03:28:34'),
  view('person_2a', '/', '2012-01-14 03:21:34'),
  view('person_2b', '/pricing', '2012-01-14 03:28:34'),
  view('person_2a', '/about', '2012-01-14 03:29:34'),
  view('person_3', '/pricing', '2012-01-14 03:21:34'),
  view('person_3', '/', '2012-01-14 03:28:34'),
  view('person_4', '/', '2012-01-14 03:21:34'),
  view('person_4', '/pricing', '2012-01-14 03:28:34'),
];

/** Events of one person a minute apart from 2021-05-01 10:00. */
function sequence(build: (distinctId: string, item: string, time: string) => Captured, distinctId: string, items: string[]): Captured[] {
  return items.map((item, index) => build(distinctId, item, `2021-05-01 10:${String(index).padStart(2, '0')}:00`));
}

const DATASETS: Record<string, Captured[]> = {
  urls: URL_EVENTS,
  customEvents: [
    ...sequence(custom, 'person_1', ['custom_event_1', 'custom_event_3']),
    view('person_1', '/', '2021-05-01 10:02:00'),
    ...sequence(custom, 'person_2', ['custom_event_1', 'custom_event_2', 'custom_event_3']),
    ...sequence(custom, 'person_3', ['custom_event_2', 'custom_event_1']),
    ...sequence(custom, 'person_4', ['custom_event_1', 'custom_event_2']),
  ],
  screens: [
    alias('person_2a', 'person_2b'),
    ...sequence(screen, 'person_1', ['/', '/about']),
    screen('person_2b', '/', '2021-05-01 10:00:00'),
    screen('person_2a', '/pricing', '2021-05-01 10:01:00'),
    screen('person_2b', '/about', '2021-05-01 10:02:00'),
    ...sequence(screen, 'person_3', ['/pricing', '/']),
    ...sequence(screen, 'person_4', ['/', '/pricing']),
  ],
  properties: [
    ...sequence((id, url, time) => view(id, url, time, { $browser: 'Chrome' }), 'person_1', ['/', '/about']),
    ...sequence((id, url, time) => view(id, url, time, { $browser: 'Chrome' }), 'person_2', ['/', '/pricing', '/about']),
    ...sequence(view, 'person_3', ['/pricing', '/']),
    ...sequence(view, 'person_4', ['/', '/pricing']),
  ],
  start: [
    alias('person_5a', 'person_5b'),
    ...sequence(view, 'person_1', ['/', '/about']),
    ...sequence(view, 'person_2', ['/', '/pricing', '/about']),
    ...sequence(view, 'person_3', ['/pricing', '/', '/about']),
    ...sequence(view, 'person_4', ['/', '/pricing']),
    view('person_5a', '/pricing', '2021-05-01 10:00:00'),
    view('person_5b', '/about', '2021-05-01 10:01:00'),
    view('person_5a', '/pricing', '2021-05-01 10:02:00'),
    view('person_5b', '/help', '2021-05-01 10:03:00'),
  ],
  window: [
    view('person_1', '/', '2020-04-14 03:25:34'),
    view('person_1', '/about', '2020-04-14 03:30:34'),
    view('person_1', '/', '2020-04-15 03:25:34'),
    view('person_1', '/about', '2020-04-15 03:30:34'),
  ],
  stepLimit: [
    view('fake', '/1', '2012-01-01 03:21:34'),
    view('fake', '/2', '2012-01-01 03:22:34'),
    view('fake', '/3', '2012-01-01 03:24:34'),
    view('fake', '/4', '2012-01-01 03:27:34'),
  ],
  conversionTimes: [
    view('fake', '/1', '2012-01-01 03:21:34'),
    view('fake', '/2', '2012-01-01 03:22:34'),
    view('fake', '/3', '2012-01-01 03:24:34'),
    view('fake', '/4', '2012-01-01 03:27:34'),
    view('fake2', '/1', '2012-01-01 03:21:34'),
    view('fake2', '/2', '2012-01-01 03:23:34'),
    view('fake2', '/3', '2012-01-01 03:27:34'),
  ],
  ordering: Array.from({ length: 50 }, (_, i) => [
    custom(`user_${i}`, 'step one', '2021-05-01 00:00:00'),
    custom(`user_${i}`, 'step two', '2021-05-01 00:01:00'),
    custom(`user_${i}`, 'step three', '2021-05-01 00:02:00'),
    ...(i % 2 === 0 ? [custom(`user_${i}`, 'step branch', '2021-05-01 00:03:00')] : []),
  ]).flat(),
  dropoffs: multipleDropoffs(),
  cleaning: ['user_1', 'user_2', 'user_3'].flatMap((user, index) => [
    view(user, 'test.com/step1', '2021-05-01 00:00:00'),
    view(user, 'test.com/step2/5', '2021-05-01 00:01:00'),
    view(user, `test.com/step2/5?key=value${index + 1}`, '2021-05-01 00:02:00'),
  ]),
  ends: [
    ...['/1', '/2', '/3', '/4', '/5', '/about', '/after'].map((url, index) => view('person_1', url, may1(index + 1))),
    view('person_2', '/5', may1(1)),
    view('person_2', '/about', may1(2)),
    ...['/3', '/4', '/about', '/after'].map((url, index) => view('person_3', url, may1(index + 1))),
  ],
  inclusion: [
    view('p1', '/1', '2012-01-01 03:21:34'),
    view('p1', '/2/', '2012-01-01 03:22:34'),
    view('p1', '/3', '2012-01-01 03:24:34'),
    screen('p2', '/screen1', '2012-01-01 03:21:34'),
    screen('p2', '/screen2', '2012-01-01 03:22:34'),
    screen('p2', '/screen3', '2012-01-01 03:24:34'),
    custom('p3', '/custom1', '2012-01-01 03:21:34'),
    custom('p3', '/custom2', '2012-01-01 03:22:34'),
    custom('p3', '/custom3', '2012-01-01 03:24:34'),
  ],
  wildcards: [
    ['p1', '/2/bar/1/foo'],
    ['p2', '/bar/2/foo'],
    ['p3', '/bar/33/foo'],
  ].flatMap(([person, middle]) => [
    view(person!, '/1', '2012-01-01 03:21:34'),
    view(person!, middle!, '2012-01-01 03:22:34'),
    view(person!, '/3', '2012-01-01 03:24:34'),
  ]),
  evil: [
    view('p1', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!', '2012-01-01 03:21:34'),
    view('p1', '/2/bar/aaa', '2012-01-01 03:22:34'),
    view('p1', '/3', '2012-01-01 03:24:34'),
    view('p2', '/1', '2012-01-01 03:21:34'),
    view('p2', '/2/3?q=1', '2012-01-01 03:22:34'),
    view('p2', '/3?q=1', '2012-01-01 03:24:34'),
  ],
  single: [
    view('p1', '/1', '2012-01-01 03:21:34'),
    view('p1', '/2', '2012-01-01 03:22:34'),
    view('p1', '/3', '2012-01-01 03:24:34'),
    screen('p1', '/screen1', '2012-01-01 03:25:34'),
    screen('p1', '/screen2', '2012-01-01 03:26:34'),
    screen('p1', '/screen3', '2012-01-01 03:28:34'),
    custom('p1', '/custom1', '2012-01-01 03:29:34'),
    custom('p1', '/custom2', '2012-01-01 03:30:34'),
    custom('p1', '/custom3', '2012-01-01 03:32:34'),
  ],
  sessions: [
    view('fake', '/1', '2012-01-01 03:21:34'),
    view('fake', '/2', '2012-01-01 03:22:34'),
    view('fake', '/3', '2012-01-01 03:24:34'),
    view('fake', '/1', '2012-01-02 03:21:54'),
    view('fake', '/2/', '2012-01-02 03:22:54'),
    view('fake', '/3', '2012-01-02 03:26:54'),
  ],
  duplicates: [
    view('fake', '/1', '2012-01-01 03:21:34'),
    view('fake', '/1', '2012-01-01 03:21:54'),
    view('fake', '/2', '2012-01-01 03:22:34'),
    view('fake', '/2/', '2012-01-01 03:22:54'),
    view('fake', '/3', '2012-01-01 03:24:54'),
    view('fake2', '/1', '2012-01-01 03:21:34'),
    view('fake2', '/2/', '2012-01-01 03:23:34'),
    view('fake2', '/3', '2012-01-01 03:27:34'),
  ],
  orphans: [
    ...Array.from({ length: 5 }, (_, i) =>
      ['/1', '/2', '/3', '/4', '/5', '/about', '/after'].map((url, index) => view(`person_${i}`, url, may1(index + 1))),
    ).flat(),
    ...['/2', '/a', '/x', '/about'].map((url, index) => view('person_r_2', url, [may1(1), may1(1, 30), may1(2), may1(3)][index]!)),
    ...['/2', '/b', '/x', '/about'].map((url, index) => view('person_r_3', url, [may1(1), may1(1, 30), may1(2), may1(3)][index]!)),
  ],
  personDropoffs: [
    ...Array.from({ length: 35 }, (_, i) =>
      ['step one', 'step two', 'step three', 'step four']
        .slice(0, i < 5 ? 2 : i < 15 ? 3 : 4)
        .map((event, index) => custom(`user_${i}`, event, may1([0, 4, 5, 6][index]!))),
    ).flat(),
  ],
  groups: [
    {
      event: '$groupidentify',
      distinct_id: 'setup',
      timestamp: '2011-01-01T00:00:00Z',
      properties: { $group_type: 'organization', $group_key: 'org:5', $group_set: { industry: 'finance' } },
    },
    {
      event: '$groupidentify',
      distinct_id: 'setup',
      timestamp: '2011-01-01T00:00:00Z',
      properties: { $group_type: 'organization', $group_key: 'org:6', $group_set: { industry: 'technology' } },
    },
    {
      event: '$groupidentify',
      distinct_id: 'setup',
      timestamp: '2011-01-01T00:00:00Z',
      properties: { $group_type: 'company', $group_key: 'company:1', $group_set: { industry: 'technology' } },
    },
    view('p1', '/1', '2012-01-01 03:21:34', { $groups: { organization: 'org:5' } }),
    view('p1', '/2/', '2012-01-01 03:22:34', { $groups: { organization: 'org:5' } }),
    view('p1', '/3', '2012-01-01 03:24:34', { $groups: { organization: 'org:5' } }),
    screen('p2', '/screen1', '2012-01-01 03:21:34', { $groups: { organization: 'org:6' } }),
    screen('p2', '/screen2', '2012-01-01 03:22:34', { $groups: { organization: 'org:6' } }),
    screen('p2', '/screen3', '2012-01-01 03:24:34', { $groups: { organization: 'org:6' } }),
    custom('p3', '/custom1', '2012-01-01 03:21:34', { $groups: { company: 'company:1' } }),
    custom('p3', '/custom2', '2012-01-01 03:22:34', { $groups: { company: 'company:1' } }),
    custom('p3', '/custom3', '2012-01-01 03:24:34', { $groups: { company: 'company:1' } }),
  ],
};

const ONE_MINUTE = 60_000;

type Edge = { source: string; target: string; value: number; average_conversion_time: number };

function edge(source: string, target: string, value: number, minutes: number): Edge {
  return { source, target, value, average_conversion_time: minutes * ONE_MINUTE };
}

const MAY_WEEK = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' };
const MAY_FIRST = { date_from: '2021-05-01', date_to: '2021-05-02' };
const JAN_2012 = { date_from: '2012-01-01', date_to: '2012-01-31' };
const FUNNEL = {
  insight: 'FUNNELS',
  interval: 'day',
  ...MAY_WEEK,
  funnel_window_interval: 7,
  funnel_window_interval_unit: 'day',
  events: [
    { id: 'step one', order: 0 },
    { id: 'step two', order: 1 },
    { id: 'step three', order: 2 },
  ],
};

describe('insights: paths', () => {
  let server: TallyServer;
  const projects: Record<string, number> = {};
  const keys: Record<string, string> = {};
  let otherProjectId: number;

  before(async () => {
    server = new TallyServer();
    const tokens: Record<string, string> = {};
    for (const name of Object.keys(DATASETS)) {
      const created = server.createProject(name);
      projects[name] = created.id;
      tokens[name] = created.api_token;
    }
    server.personalApiKey = server.createKey('*');
    keys.personOnly = server.createKey('person:read');
    keys.insightOnly = server.createKey('insight:read');
    keys.urlsOnly = server.createKey('insight:read', [projects.urls!]);
    ({ otherProjectId } = await addSecondOrganization(server, 'Elsewhere'));
    await server.start();
    for (const [name, batch] of Object.entries(DATASETS)) {
      // Identity events first, so every later event finds the person they make.
      const identities = batch.filter((event) => String(event.event).startsWith('$create_alias') || event.event === '$groupidentify');
      for (const part of [identities, batch.filter((event) => !identities.includes(event))]) {
        if (part.length > 0) await server.bodyOf('POST', '/batch/', 200, { key: null, body: { api_key: tokens[name], batch: part } });
      }
    }
    await server.bodyOf('PATCH', `/api/projects/${projects.urls}/`, 200, {
      body: { test_account_filters: [{ key: 'email', value: 'posthog.com', operator: 'not_icontains', type: 'person' }] },
    });
  });
  after(() => server.dispose());

  const url = (project: string) => `/api/projects/${projects[project]}/insights/path/`;

  async function paths(project: string, params: Record<string, unknown>): Promise<Edge[]> {
    const response = await server.get(`${url(project)}?${actorQuery(params)}`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['is_cached', 'last_refresh', 'result', 'timezone']);
    return response.body.result;
  }

  async function people(project: string, params: Record<string, unknown>): Promise<string[]> {
    const response = await server.get(`/api/projects/${projects[project]}/persons/path/?${actorQuery(params)}`);
    assert.equal(response.status, 200, response.text);
    return response.body.results[0].people.map((person: { distinct_ids: string[] }) => person.distinct_ids[0]);
  }

  /** Every edge's persons, as many as the edge's value: each of them walked it in one session. */
  async function assertEdgeActors(project: string, params: Record<string, unknown>, edges: Edge[]): Promise<void> {
    for (const { source, target, value } of edges) {
      const persons = await people(project, { ...params, path_start_key: source, path_end_key: target });
      assert.equal(persons.length, value, `${source} → ${target}`);
    }
  }

  async function checked(project: string, params: Record<string, unknown>): Promise<Edge[]> {
    const edges = await paths(project, params);
    await assertEdgeActors(project, params, edges);
    return edges;
  }

  test('current URLs: node positions, heaviest edges first, seven minutes apart; date range and test accounts', async () => {
    const range = { date_from: '2012-01-08', date_to: '2012-01-22' };
    assert.deepEqual(await checked('urls', range), [
      edge('1_/', '2_/pricing', 2, 7),
      edge('1_/', '2_/about', 1, 7),
      edge('1_/pricing', '2_/', 1, 7),
      edge('2_/pricing', '3_/about', 1, 1),
    ]);
    assert.equal((await paths('urls', { ...range, filter_test_accounts: true })).length, 3);
    assert.deepEqual(await paths('urls', { date_from: '2012-01-22' }), []);
    assert.deepEqual(await paths('urls', { date_from: '2012-01-22', date_to: '2012-01-08' }), []);
    // The default range is the last 7 days.
    assert.deepEqual(await paths('urls', {}), []);
  });

  test('custom events and screens as path items', async () => {
    const expected = (first: string, second: string, third: string) => [
      edge(`1_${first}`, `2_${second}`, 2, 1),
      edge(`1_${first}`, `2_${third}`, 1, 1),
      edge(`1_${second}`, `2_${first}`, 1, 1),
      edge(`2_${second}`, `3_${third}`, 1, 1),
    ];
    assert.deepEqual(
      await checked('customEvents', { ...MAY_FIRST, path_type: 'custom_event' }),
      expected('custom_event_1', 'custom_event_2', 'custom_event_3'),
    );
    assert.deepEqual(await checked('screens', { ...MAY_FIRST, path_type: '$screen' }), [
      edge('1_/', '2_/pricing', 2, 1),
      edge('1_/', '2_/about', 1, 1),
      edge('1_/pricing', '2_/', 1, 1),
      edge('2_/pricing', '3_/about', 1, 1),
    ]);
  });

  test('a property filter keeps only the events that pass it', async () => {
    assert.deepEqual(await checked('properties', { ...MAY_FIRST, properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] }), [
      edge('1_/', '2_/about', 1, 1),
      edge('1_/', '2_/pricing', 1, 1),
      edge('2_/pricing', '3_/about', 1, 1),
    ]);
  });

  test('start point: paths from its first occurrence', async () => {
    assert.deepEqual(await checked('start', { ...MAY_FIRST, path_type: '$pageview', start_point: '/pricing' }), [
      edge('1_/pricing', '2_/about', 2, 1),
      edge('1_/pricing', '2_/', 1, 1),
      edge('2_/', '3_/about', 1, 1),
      edge('2_/about', '3_/pricing', 1, 1),
      edge('3_/pricing', '4_/help', 1, 1),
    ]);
    assert.deepEqual(await checked('start', { ...MAY_FIRST, path_type: '$pageview', start_point: '/' }), [
      edge('1_/', '2_/about', 2, 1),
      edge('1_/', '2_/pricing', 2, 1),
      edge('2_/pricing', '3_/about', 1, 1),
    ]);
  });

  test('the same path on two days counts twice', async () => {
    assert.deepEqual(await paths('window', { date_from: '2020-04-13', date_to: '2020-04-16' }), [edge('1_/', '2_/about', 2, 5)]);
  });

  test('step limit cuts each path; the edges cut away have no persons', async () => {
    const range = { date_from: '2011-12-25', date_to: '2012-01-07' };
    assert.deepEqual(await checked('stepLimit', { ...range, step_limit: 2 }), [edge('1_/1', '2_/2', 1, 1)]);
    assert.deepEqual(await people('stepLimit', { ...range, step_limit: 2, path_start_key: '2_/2', path_end_key: '3_/3' }), []);
    assert.deepEqual(await checked('stepLimit', { ...range, step_limit: 3 }), [edge('1_/1', '2_/2', 1, 1), edge('2_/2', '3_/3', 1, 2)]);
    assert.deepEqual(await checked('stepLimit', { ...range, step_limit: 4 }), [
      edge('1_/1', '2_/2', 1, 1),
      edge('2_/2', '3_/3', 1, 2),
      edge('3_/3', '4_/4', 1, 3),
    ]);
  });

  test('average conversion times are per edge, in milliseconds', async () => {
    assert.deepEqual(await checked('conversionTimes', { step_limit: 4, date_from: '2012-01-01', date_to: '2012-01-02', include_event_types: ['$pageview'] }), [
      edge('1_/1', '2_/2', 2, 1.5),
      edge('2_/2', '3_/3', 2, 3),
      edge('3_/3', '4_/4', 1, 3),
    ]);
  });

  test('many similar paths are not scrambled', async () => {
    assert.deepEqual(await checked('ordering', { date_from: '2021-05-01', date_to: '2021-05-03', include_event_types: ['custom_event'] }), [
      edge('1_step one', '2_step two', 50, 1),
      edge('2_step two', '3_step three', 50, 1),
      edge('3_step three', '4_step branch', 25, 1),
    ]);
  });

  test('groupings: matching items become the pattern, and repeats of it collapse into the last', async () => {
    const groupings = { ...MAY_WEEK, path_groupings: ['between_step_1_*', 'between_step_2_*', 'step drop*'] };
    assert.deepEqual(await checked('dropoffs', groupings), [
      edge('1_step one', '2_step drop*', 20, 2),
      // Five went on to between_step_1_c (3 minutes), ten to between_step_1_b (2 minutes).
      edge('1_step one', '2_between_step_1_*', 15, (5 * 3 + 10 * 2) / 15),
      edge('2_between_step_1_*', '3_step two', 15, 1),
      edge('2_step drop*', '3_step branch', 10, 1),
      edge('3_step two', '4_between_step_2_*', 10, 160_000 / ONE_MINUTE),
      edge('3_step two', '4_step three', 5, 1),
    ]);
    assert.deepEqual(await paths('dropoffs', { ...groupings, min_edge_weight: 15 }), [
      edge('1_step one', '2_step drop*', 20, 2),
      edge('1_step one', '2_between_step_1_*', 15, (5 * 3 + 10 * 2) / 15),
      edge('2_between_step_1_*', '3_step two', 15, 1),
    ]);
    assert.deepEqual(await paths('dropoffs', { ...groupings, min_edge_weight: 15, edge_limit: 2 }), [
      edge('1_step one', '2_step drop*', 20, 2),
      edge('1_step one', '2_between_step_1_*', 15, (5 * 3 + 10 * 2) / 15),
    ]);
    assert.deepEqual(await paths('dropoffs', { ...groupings, edge_limit: 20, max_edge_weight: 11, min_edge_weight: 6 }), [
      edge('2_step drop*', '3_step branch', 10, 1),
      edge('3_step two', '4_between_step_2_*', 10, 160_000 / ONE_MINUTE),
    ]);
  });

  test('funnel paths: after a drop-off, after a step, before a drop-off, before a step, between steps', async () => {
    const funnelPaths = (type: string, funnelStep: number) => ({
      ...FUNNEL,
      funnel_paths: type,
      funnel_filter: { ...FUNNEL, funnel_step: funnelStep },
    });
    const afterDropoff = funnelPaths('funnel_path_after_step', -2);
    assert.deepEqual(await checked('dropoffs', afterDropoff), [
      edge('1_step one', '2_step dropoff1', 20, 1),
      edge('2_step dropoff1', '3_step dropoff2', 20, 1),
      edge('3_step dropoff2', '4_step branch', 10, 1),
    ]);
    assert.deepEqual(await people('dropoffs', { ...afterDropoff, path_start_key: '4_step branch', path_end_key: '3_step dropoff2' }), []);
    assert.deepEqual(await checked('dropoffs', funnelPaths('funnel_path_after_step', 2)), [
      edge('1_step two', '2_between_step_2_a', 10, 80_000 / ONE_MINUTE),
      edge('2_between_step_2_a', '3_between_step_2_b', 10, 80_000 / ONE_MINUTE),
      edge('1_step two', '2_step three', 5, 1),
    ]);
    // Up to a conversion window after the last step done: past step two for those who never did step three.
    assert.deepEqual(await checked('dropoffs', funnelPaths('funnel_path_before_step', -3)), [
      edge('1_step one', '2_between_step_1_a', 10, 1),
      edge('2_between_step_1_a', '3_between_step_1_b', 10, 1),
      edge('3_between_step_1_b', '4_step two', 10, 1),
      edge('4_step two', '5_between_step_2_a', 10, 80_000 / ONE_MINUTE),
    ]);
    const stepTwo = [
      edge('1_step one', '2_between_step_1_a', 15, 1),
      edge('2_between_step_1_a', '3_between_step_1_b', 15, 1),
      edge('3_between_step_1_b', '4_step two', 10, 1),
      edge('3_between_step_1_b', '4_between_step_1_c', 5, 1),
      edge('4_between_step_1_c', '5_step two', 5, 1),
    ];
    assert.deepEqual(await checked('dropoffs', funnelPaths('funnel_path_before_step', 2)), stepTwo);
    assert.deepEqual(await checked('dropoffs', funnelPaths('funnel_path_between_steps', 2)), stepTwo);
  });

  test('local path cleaning rules apply in order', async () => {
    const expected = [edge('1_test.com/step1', '2_test.com/step2/<id>', 3, 1), edge('2_test.com/step2/<id>', '3_test.com/step2/<id><param>', 3, 1)];
    const params = {
      include_event_types: ['$pageview'],
      ...MAY_WEEK,
      local_path_cleaning_filters: [
        { alias: '?<param>', regex: '\\?(.*)' },
        { alias: '/<id>', regex: '/\\d+(/|\\?)?' },
      ],
    };
    assert.deepEqual(await checked('cleaning', params), expected);
    // Tally's projects have no path cleaning rules of their own: path_replacements adds none.
    assert.deepEqual(await paths('cleaning', { ...params, path_replacements: true }), expected);
  });

  test('end point: the last steps up to its first occurrence; with a start point, the path between them', async () => {
    const range = { path_type: '$pageview', ...MAY_WEEK };
    assert.deepEqual(await checked('ends', { ...range, end_point: '/about' }), [
      edge('1_/2', '2_/3', 1, 1),
      edge('1_/3', '2_/4', 1, 1),
      edge('1_/5', '2_/about', 1, 1),
      edge('2_/3', '3_/4', 1, 1),
      edge('2_/4', '3_/about', 1, 1),
      edge('3_/4', '4_/5', 1, 1),
      edge('4_/5', '5_/about', 1, 1),
    ]);
    assert.deepEqual(await checked('ends', { ...range, start_point: '/5', end_point: '/about' }), [edge('1_/5', '2_/about', 2, 1)]);
    // A path longer than the step limit keeps its first and last halves around "...".
    const long = { ...range, start_point: '/2', end_point: '/about', step_limit: 4 };
    assert.deepEqual(await checked('ends', long), [
      edge('1_/2', '2_/3', 1, 1),
      edge('2_/3', '3_...', 1, 1),
      edge('3_...', '4_/5', 1, 1),
      edge('4_/5', '5_/about', 1, 1),
    ]);
  });

  test('event types, custom events by name and excluded items', async () => {
    const base = { step_limit: 4, date_from: '2012-01-01', date_to: '2012-01-02' };
    const pageviews = [edge('1_/1', '2_/2', 1, 1), edge('2_/2', '3_/3', 1, 2)];
    assert.deepEqual(await checked('inclusion', { ...base, include_event_types: ['$pageview'] }), pageviews);
    assert.deepEqual(await checked('inclusion', { ...base, include_event_types: ['$screen'] }), [
      edge('1_/screen1', '2_/screen2', 1, 1),
      edge('2_/screen2', '3_/screen3', 1, 2),
    ]);
    assert.deepEqual(await checked('inclusion', { ...base, include_event_types: ['custom_event'] }), [
      edge('1_/custom1', '2_/custom2', 1, 1),
      edge('2_/custom2', '3_/custom3', 1, 2),
    ]);
    assert.deepEqual(await checked('inclusion', { ...base, include_event_types: [], include_custom_events: ['/custom1', '/custom2'] }), [
      edge('1_/custom1', '2_/custom2', 1, 1),
    ]);
    assert.deepEqual(await paths('inclusion', { ...base, include_event_types: [], include_custom_events: ['/custom3', 'blah'] }), []);
    const all = { ...base, include_event_types: ['$pageview', '$screen', 'custom_event'] };
    assert.deepEqual(await checked('inclusion', all), [
      edge('1_/1', '2_/2', 1, 1),
      edge('1_/custom1', '2_/custom2', 1, 1),
      edge('1_/screen1', '2_/screen2', 1, 1),
      edge('2_/2', '3_/3', 1, 2),
      edge('2_/custom2', '3_/custom3', 1, 2),
      edge('2_/screen2', '3_/screen3', 1, 2),
    ]);
    assert.deepEqual(await checked('inclusion', { ...all, exclude_events: ['/custom1', '/1', '/2', '/3'] }), [
      edge('1_/custom2', '2_/custom3', 1, 2),
      edge('1_/screen1', '2_/screen2', 1, 1),
      edge('2_/screen2', '3_/screen3', 1, 2),
    ]);
  });

  test('wildcard groupings match anywhere in the item; exclusions match the grouped item', async () => {
    const base = { step_limit: 4, ...JAN_2012, include_event_types: ['$pageview'] };
    assert.deepEqual(await checked('wildcards', { ...base, path_groupings: ['/bar/*/foo'] }), [
      edge('1_/1', '2_/bar/*/foo', 3, 1),
      edge('2_/bar/*/foo', '3_/3', 3, 2),
    ]);
    assert.deepEqual(await checked('wildcards', { ...base, exclude_events: ['/bar/*/foo'], path_groupings: ['/bar/*/foo'] }), [edge('1_/1', '2_/3', 3, 3)]);
    assert.equal((await paths('wildcards', { ...base, exclude_events: ['/bar/*/foo'], path_groupings: ['/xxx/invalid/*'] })).length, 6);
  });

  test('grouping patterns are literal text but for *; of several matching patterns the last wins', async () => {
    const params = { ...JAN_2012, include_event_types: ['$pageview'], path_groupings: ['(a+)+', '[aaa|aaaa]+', '1.*', '.*', '/3?q=1', '/3*'] };
    assert.deepEqual(await checked('evil', params), [
      edge('1_/1', '2_/3*', 1, 3),
      edge('1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!', '2_/2/bar/aaa', 1, 1),
      edge('2_/2/bar/aaa', '3_/3*', 1, 2),
    ]);
  });

  test('every kind of event in one person path; excluded items close the gap', async () => {
    const base = { step_limit: 10, ...JAN_2012 };
    assert.deepEqual(await checked('single', base), [
      edge('1_/1', '2_/2', 1, 1),
      edge('2_/2', '3_/3', 1, 2),
      edge('3_/3', '4_/screen1', 1, 1),
      edge('4_/screen1', '5_/screen2', 1, 1),
      edge('5_/screen2', '6_/screen3', 1, 2),
      edge('6_/screen3', '7_/custom1', 1, 1),
      edge('7_/custom1', '8_/custom2', 1, 1),
      edge('8_/custom2', '9_/custom3', 1, 2),
    ]);
    assert.deepEqual(await checked('single', { ...base, include_event_types: ['$pageview', '$screen'], include_custom_events: ['/custom2'] }), [
      edge('1_/1', '2_/2', 1, 1),
      edge('2_/2', '3_/3', 1, 2),
      edge('3_/3', '4_/screen1', 1, 1),
      edge('4_/screen1', '5_/screen2', 1, 1),
      edge('5_/screen2', '6_/screen3', 1, 2),
      edge('6_/screen3', '7_/custom2', 1, 2),
    ]);
    assert.deepEqual(await checked('single', { ...base, include_event_types: ['$pageview', 'custom_event'], exclude_events: ['/custom1', '/custom3'] }), [
      edge('1_/1', '2_/2', 1, 1),
      edge('2_/2', '3_/3', 1, 2),
      edge('3_/3', '4_/custom2', 1, 6),
    ]);
  });

  test('edge values count person-sessions: one person, two sessions, value 2 and one person', async () => {
    const params = { date_from: '2012-01-01', date_to: '2012-01-03' };
    const edges = await paths('sessions', params);
    assert.deepEqual(edges, [edge('1_/1', '2_/2', 2, 1), edge('2_/2', '3_/3', 2, 3)]);
    for (const { source, target } of edges) assert.deepEqual(await people('sessions', { ...params, path_start_key: source, path_end_key: target }), ['fake']);
  });

  test('consecutive repeats collapse into their last event; one trailing slash is dropped', async () => {
    assert.deepEqual(await checked('duplicates', { date_from: '2012-01-01', date_to: '2012-01-02' }), [
      edge('1_/1', '2_/2', 2, 1.5),
      edge('2_/2', '3_/3', 2, 3),
    ]);
  });

  test('edges the edge limit leaves unconnected to a first step are dropped', async () => {
    assert.deepEqual(await paths('orphans', { path_type: '$pageview', start_point: '/2', ...MAY_WEEK, edge_limit: '6' }), [
      edge('1_/2', '2_/3', 5, 1),
      edge('2_/3', '3_/4', 5, 1),
      edge('3_/4', '4_/5', 5, 1),
      edge('4_/5', '5_/about', 5, 1),
      edge('1_/2', '2_/a', 1, 0.5),
    ]);
  });

  test('persons who dropped off at, reached, or went on from a node', async () => {
    const params = { include_event_types: ['custom_event'], ...MAY_WEEK };
    const count = async (keys: Record<string, string>) => (await people('personDropoffs', { ...params, ...keys })).length;
    assert.equal(await count({ path_dropoff_key: '2_step two' }), 5);
    assert.equal(await count({ path_end_key: '2_step two' }), 35);
    assert.equal(await count({ path_start_key: '2_step two' }), 30);
    assert.equal(await count({ path_dropoff_key: '3_step three' }), 10);
    assert.equal(await count({ path_end_key: '3_step three' }), 30);
    assert.equal(await count({ path_start_key: '3_step three' }), 20);
    assert.equal(await count({ path_dropoff_key: '4_step four' }), 20);
    assert.equal(await count({ path_end_key: '4_step four' }), 20);
    assert.equal(await count({ path_start_key: '4_step four' }), 0);
    // Newest person first: the 35 persons were created in order, user_0 first.
    const page = await people('personDropoffs', { ...params, path_dropoff_key: '2_step two' });
    assert.deepEqual(page, ['user_4', 'user_3', 'user_2', 'user_1', 'user_0']);
  });

  test("group property filters read the events' groups", async () => {
    const params = { step_limit: 4, date_from: '2012-01-01', date_to: '2012-02-01', include_event_types: ['$pageview', '$screen', 'custom_event'] };
    const industry = (value: string, index: number) => ({ ...params, properties: [{ key: 'industry', value, type: 'group', group_type_index: index }] });
    assert.deepEqual(await checked('groups', industry('finance', 0)), [edge('1_/1', '2_/2', 1, 1), edge('2_/2', '3_/3', 1, 2)]);
    assert.deepEqual(await checked('groups', industry('technology', 0)), [edge('1_/screen1', '2_/screen2', 1, 1), edge('2_/screen2', '3_/screen3', 1, 2)]);
    assert.deepEqual(await checked('groups', industry('technology', 1)), [edge('1_/custom1', '2_/custom2', 1, 1), edge('2_/custom2', '3_/custom3', 1, 2)]);
  });

  test('POST takes the filter as a JSON body; paths with and without the slash and under /api/environments/', async () => {
    const params = { include_event_types: ['custom_event'], ...MAY_WEEK };
    const viaGet = await server.bodyOf('GET', `${url('personDropoffs')}?${actorQuery(params)}`);
    assert.deepEqual(viaGet.result, [
      edge('1_step one', '2_step two', 35, 4),
      edge('2_step two', '3_step three', 30, 1),
      edge('3_step three', '4_step four', 20, 1),
    ]);
    for (const [method, path, body] of [
      ['POST', url('personDropoffs'), params],
      ['GET', `${url('personDropoffs').slice(0, -1)}?${actorQuery(params)}`, undefined],
      ['POST', `/api/environments/${projects.personDropoffs}/insights/path`, params],
    ] as const) {
      assert.deepEqual((await server.bodyOf(method, path, 200, { body })).result, viaGet.result, `${method} ${path}`);
    }
  });

  test('scope insight:read; keys of other projects and other organizations are refused', async () => {
    const path = `${url('personDropoffs')}?${actorQuery(MAY_WEEK)}`;
    assert.equal((await server.get(path, { key: keys.insightOnly })).status, 200);
    assert.deepEqual((await server.get(path, { key: keys.personOnly })).body, ERRORS.missingScope('insight:read'));
    assert.equal((await server.get(path, { key: keys.urlsOnly })).status, 403);
    assert.equal((await server.get(url('urls'), { key: keys.urlsOnly })).status, 200);
    assert.equal((await server.get(`/api/projects/${otherProjectId}/insights/path/`)).status, 403);
    assert.deepEqual((await server.get('/api/projects/999999/insights/path/')).body, ERRORS.notFound);
  });

  test("another project's cohort or a funnel step of another project's action is a 400 naming the field", async () => {
    const cohort = await server.bodyOf('POST', `/api/projects/${projects.urls}/cohorts/`, 201, {
      body: { name: 'elsewhere', filters: { properties: { type: 'AND', values: [{ key: 'email', value: 'x', operator: 'exact', type: 'person' }] } } },
    });
    const action = await server.bodyOf('POST', `/api/projects/${projects.urls}/actions/`, 201, { body: { name: 'elsewhere', steps: [{ event: 'step one' }] } });
    const inCohort = await server.get(`${url('dropoffs')}?${actorQuery({ ...MAY_WEEK, properties: [{ key: 'id', value: cohort.id, type: 'cohort' }] })}`);
    assert.equal(inCohort.status, 400, inCohort.text);
    assert.equal(inCohort.body.attr, 'properties');
    const funnel = {
      ...FUNNEL,
      events: [],
      actions: [
        { id: action.id, order: 0 },
        { id: action.id, order: 1 },
      ],
      funnel_step: 1,
    };
    const viaFunnel = await server.get(`${url('dropoffs')}?${actorQuery({ ...MAY_WEEK, funnel_paths: 'funnel_path_after_step', funnel_filter: funnel })}`);
    assert.equal(viaFunnel.status, 400, viaFunnel.text);
    assert.equal(viaFunnel.body.attr, 'actions');
  });

  test('bad input is a 400 naming the field, never a 500', async () => {
    for (const [params, attr] of [
      [{ step_limit: 0 }, 'step_limit'],
      [{ step_limit: 'five' }, 'step_limit'],
      [{ edge_limit: -1 }, 'edge_limit'],
      [{ min_edge_weight: 'x' }, 'min_edge_weight'],
      [{ min_edge_weight: 5, max_edge_weight: 2 }, 'max_edge_weight'],
      [{ include_event_types: ['$autocapture'] }, 'include_event_types'],
      [{ include_event_types: ['hogql'] }, 'include_event_types'],
      [{ include_event_types: ['custom_event'], include_custom_events: ['a'] }, 'include_custom_events'],
      [{ exclude_events: { a: 1 } }, 'exclude_events'],
      [{ path_groupings: [1] }, 'path_groupings'],
      [{ local_path_cleaning_filters: [{ regex: '(' }] }, 'local_path_cleaning_filters'],
      [{ date_from: 'then' }, 'date_from'],
      [{ date_to: 'then' }, 'date_to'],
      [{ properties: '[{' }, 'properties'],
      [{ funnel_paths: 'sideways', funnel_filter: FUNNEL }, 'funnel_paths'],
      [{ funnel_paths: 'funnel_path_after_step' }, 'funnel_filter'],
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: '{' }, 'funnel_filter'],
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: FUNNEL }, 'funnel_step'],
      [{ funnel_paths: 'funnel_path_between_steps', funnel_filter: { ...FUNNEL, funnel_step: 1 } }, 'funnel_filter'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await server.get(`${url('dropoffs')}?${actorQuery(params)}`);
      assert.equal(response.status, 400, `${JSON.stringify(params)} ${response.text}`);
      assert.equal(response.body.type, 'validation_error');
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
  });

  test('a saved insight of paths filters computes the numbers of the endpoint', async () => {
    const filters = { insight: 'PATHS', include_event_types: ['custom_event'], ...MAY_WEEK };
    const created = await server.bodyOf('POST', `/api/projects/${projects.personDropoffs}/insights/`, 201, { body: { name: 'Paths', filters } });
    const computed = await server.bodyOf('GET', `/api/projects/${projects.personDropoffs}/insights/${created.id}/?refresh=true`);
    assert.deepEqual(computed.result, await paths('personDropoffs', filters));
    assert.equal(computed.result.length, 3);
  });
});
