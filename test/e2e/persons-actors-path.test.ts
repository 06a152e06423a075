import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { PERSONS, startWithKeys } from '../support/persons.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * `GET|POST /persons/path` (project 1, UTC, 2021-06-01). Session paths, all event types:
 *   p1  10:00 /, 10:05 /pricing, 10:10 /pricing/ (same item), 10:15 /signup  → [/, /pricing, /signup]
 *   p2  10:00 /, 10:05 /about, 10:10 /                                        → [/, /about, /]
 *   p3  10:00 /pricing, 11:00 / (an hour later: a new session)                 → [/pricing] and [/]
 *   p4  10:00 custom event `clicked`, 10:01 /pricing                          → [clicked, /pricing]
 *
 * Persons are listed newest first (created_at desc, then id desc); each was created by its first
 * event, and p1 … p4 all at 10:00, so the later created comes first: p4, p3, p2, p1 (then q2, q1).
 *
 * Funnel paths (2021-06-10, funnel `signup` → `purchase`, pageviews only):
 *   q1  10:00 /home, 10:01 signup, 10:02 /welcome, 10:03 purchase, 10:04 /thanks
 *   q2  10:00 /home, 10:01 signup, 10:02 /help
 */
const PATH = `${PERSONS}/path/`;
const RANGE = { date_from: '2021-06-01', date_to: '2021-06-02' };

describe('persons analysis: path actors', () => {
  let server: TallyServer;
  let keys: Record<string, string>;

  before(async () => {
    ({ server, keys } = await startWithKeys({ insightOnly: 'insight:read' }));
    const view = (distinctId: string, time: string, url: string) => ({
      event: '$pageview',
      distinct_id: distinctId,
      timestamp: `2021-06-01T${time}:00Z`,
      properties: { $current_url: url },
    });
    await sendBatch(server, [
      view('p1', '10:00', '/'),
      view('p1', '10:05', '/pricing'),
      view('p1', '10:10', '/pricing/'),
      view('p1', '10:15', '/signup'),
      view('p2', '10:00', '/'),
      view('p2', '10:05', '/about'),
      view('p2', '10:10', '/'),
      view('p3', '10:00', '/pricing'),
      view('p3', '11:00', '/'),
      { event: 'clicked', distinct_id: 'p4', timestamp: '2021-06-01T10:00:00Z' },
      view('p4', '10:01', '/pricing'),
      ...[
        ['q1', '10:00', '$pageview', '/home'],
        ['q1', '10:01', 'signup'],
        ['q1', '10:02', '$pageview', '/welcome'],
        ['q1', '10:03', 'purchase'],
        ['q1', '10:04', '$pageview', '/thanks'],
        ['q2', '10:00', '$pageview', '/home'],
        ['q2', '10:01', 'signup'],
        ['q2', '10:02', '$pageview', '/help'],
      ].map(([distinctId, time, event, url]) => ({
        event: event!,
        distinct_id: distinctId,
        timestamp: `2021-06-10T${time}:00Z`,
        properties: url ? { $current_url: url } : {},
      })),
    ]);
  });
  after(() => server.dispose());

  const get = (params: Record<string, unknown>, key?: string) => server.get(`${PATH}?${actorQuery({ ...RANGE, ...params })}`, { key });

  test('edges from a node, into a node, one exact edge, and drop-offs at a node', async () => {
    const expected: Array<[Record<string, unknown>, string[]]> = [
      [{}, ['p4', 'p3', 'p2', 'p1']],
      [{ path_start_key: '1_/' }, ['p2', 'p1']],
      [{ path_end_key: '2_/pricing' }, ['p4', 'p1']],
      [{ path_start_key: '1_/', path_end_key: '2_/pricing' }, ['p1']],
      [{ path_start_key: '1_/', path_end_key: '3_/pricing' }, []],
      [{ path_start_key: '2_/about', path_end_key: '3_/' }, ['p2']],
      [{ path_dropoff_key: '1_/pricing' }, ['p3']],
      [{ path_dropoff_key: '1_/' }, ['p3']],
      [{ path_dropoff_key: '3_/' }, ['p2']],
      [{ path_dropoff_key: '3_/signup', path_start_key: '1_/' }, ['p1']],
    ];
    for (const [params, people] of expected) assert.deepEqual(peopleIds(await get(params)), people, JSON.stringify(params));
  });

  test('event types, start and end points, step limit, exclusions and groupings shape the paths', async () => {
    const expected: Array<[Record<string, unknown>, string[]]> = [
      [{ include_event_types: ['$pageview'], path_dropoff_key: '1_/pricing' }, ['p4', 'p3']],
      [{ include_event_types: ['custom_event'], path_dropoff_key: '1_clicked' }, ['p4']],
      [{ path_type: '$pageview', path_end_key: '2_/pricing' }, ['p1']],
      [{ start_point: '/pricing', path_dropoff_key: '1_/pricing' }, ['p4', 'p3']],
      [{ start_point: '/pricing', path_start_key: '1_/pricing' }, ['p1']],
      [{ end_point: '/', path_dropoff_key: '1_/' }, ['p3', 'p2', 'p1']],
      [{ start_point: '/', end_point: '/signup', path_dropoff_key: '3_/signup' }, ['p1']],
      [{ step_limit: 2, path_dropoff_key: '2_/pricing' }, ['p4', 'p1']],
      [{ exclude_events: ['/about'], path_dropoff_key: '1_/' }, ['p3', 'p2']],
      [{ path_groupings: ['/pri*'], path_end_key: '2_/pri*' }, ['p4', 'p1']],
      [{ local_path_cleaning_filters: [{ regex: '^/(pricing|about)$', alias: '/page' }], path_end_key: '2_/page' }, ['p4', 'p2', 'p1']],
    ];
    for (const [params, people] of expected) assert.deepEqual(peopleIds(await get(params)), people, JSON.stringify(params));
  });

  test("funnel paths: paths of a funnel step's persons after, before or between their steps", async () => {
    const june10 = { date_from: '2021-06-10', date_to: '2021-06-11', include_event_types: ['$pageview'] };
    const funnel = (step: number) => ({
      events: [
        { id: 'signup', order: 0 },
        { id: 'purchase', order: 1 },
      ],
      date_from: '2021-06-10',
      date_to: '2021-06-11',
      funnel_step: step,
    });
    const expected: Array<[Record<string, unknown>, string[]]> = [
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: funnel(1) }, ['q2', 'q1']],
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: funnel(1), path_end_key: '2_/thanks' }, ['q1']],
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: funnel(1), path_dropoff_key: '1_/help' }, ['q2']],
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: funnel(-2) }, ['q2']],
      [{ funnel_paths: 'funnel_path_before_step', funnel_filter: funnel(2), path_dropoff_key: '2_/welcome' }, ['q1']],
      [{ funnel_paths: 'funnel_path_between_steps', funnel_filter: funnel(2), path_dropoff_key: '1_/welcome' }, ['q1']],
      [{ path_dropoff_key: '3_/thanks' }, ['q1']],
    ];
    for (const [params, people] of expected) assert.deepEqual(peopleIds(await get({ ...june10, ...params })), people, JSON.stringify(params));
    const posted = await server.post(PATH, { ...june10, funnel_paths: 'funnel_path_after_step', funnel_filter: funnel(2), path_dropoff_key: '1_/thanks' });
    assert.deepEqual(peopleIds(posted), ['q1']);
    for (const [params, attr] of [
      [{ funnel_paths: 'sideways', funnel_filter: funnel(1) }, 'funnel_paths'],
      [{ funnel_paths: 'funnel_path_after_step' }, 'funnel_filter'],
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: '{' }, 'funnel_filter'],
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: { ...funnel(1), funnel_step: undefined } }, 'funnel_step'],
      [{ funnel_paths: 'funnel_path_between_steps', funnel_filter: funnel(1) }, 'funnel_filter'],
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: { ...funnel(1), funnel_order_type: 'unordered' } }, 'funnel_filter'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await get({ ...june10, ...params });
      assert.equal(response.status, 400, `${JSON.stringify(params)} ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
  });

  test('POST takes the filter as a JSON body; paging by limit and offset', async () => {
    assert.deepEqual(peopleIds(await server.post(PATH, { ...RANGE, path_start_key: '1_/', path_end_key: '2_/about' })), ['p2']);
    const first = await get({ limit: 3 });
    const next = new URL(first.body.next);
    assert.equal(next.searchParams.get('offset'), '3');
    const second = await server.get(next.pathname + next.search);
    assert.equal(second.body.next, null);
    assert.deepEqual([...peopleIds(first), ...peopleIds(second)], ['p4', 'p3', 'p2', 'p1']);
  });

  test('bad input is a 400 naming the field; the scope is person:read', async () => {
    for (const [params, attr] of [
      [{ path_start_key: 'home' }, 'path_start_key'],
      [{ path_end_key: '0_/' }, 'path_end_key'],
      [{ path_dropoff_key: '_/' }, 'path_dropoff_key'],
      [{ step_limit: 0 }, 'step_limit'],
      [{ step_limit: 'five' }, 'step_limit'],
      [{ include_event_types: ['$autocapture'] }, 'include_event_types'],
      [{ exclude_events: { a: 1 } }, 'exclude_events'],
      [{ local_path_cleaning_filters: [{ regex: '(' }] }, 'local_path_cleaning_filters'],
      [{ date_to: 'then' }, 'date_to'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await get(params);
      assert.equal(response.status, 400, `${JSON.stringify(params)} ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
    assert.deepEqual((await get({}, keys.insightOnly)).body, ERRORS.missingScope('person:read'));
  });
});
