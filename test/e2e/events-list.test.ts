import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { validationError } from '../support/definitions.js';
import { ERRORS, TallyServer, type ApiResponse } from '../support/tally.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const BASE = '/api/projects/1/events/';

interface SentEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

function sentEvent(event: string, distinctId: string, at: number, properties: Record<string, unknown> = {}): SentEvent {
  return { uuid: randomUUID(), event, distinct_id: distinctId, timestamp: new Date(at).toISOString(), properties };
}

async function send(server: TallyServer, token: string, events: SentEvent[]): Promise<void> {
  const response = await server.post('/batch/', { api_key: token, batch: events }, { key: null });
  assert.equal(response.status, 200, response.text);
}

/** The timestamp as the list shows it: UTC with six fractional digits. */
function shown(event: SentEvent): string {
  return event.timestamp.replace('Z', '000Z');
}

/** ClickHouse orders UUIDs by their last eight bytes, then their first eight. */
function uuidOrderKey(uuid: string): string {
  const hex = uuid.replace(/-/g, '');
  return hex.slice(16) + hex.slice(0, 16);
}

/** The list order: by timestamp, ties by UUID; newest first unless asked otherwise. */
function inListOrder(events: SentEvent[], newestFirst = true): string[] {
  const sorted = [...events].sort((a, b) => {
    const byTime = Date.parse(a.timestamp) - Date.parse(b.timestamp);
    if (byTime !== 0) return byTime;
    return uuidOrderKey(a.uuid) < uuidOrderKey(b.uuid) ? -1 : 1;
  });
  return (newestFirst ? sorted.reverse() : sorted).map((event) => event.uuid);
}

function ids(body: { results: { id: string }[] }): string[] {
  return body.results.map((result) => result.id);
}

/** The path and query of an absolute `next` link of this server. */
function relative(server: TallyServer, next: string): string {
  assert.ok(next.startsWith(`${server.url}/`), next);
  return next.slice(server.url.length);
}

describe('events list API', () => {
  const now = Date.now();
  const ada = {
    signup: sentEvent('signup', 'anon-ada', now - 2 * HOUR_MS, { plan: 'pro', $current_url: 'https://tally.dev/signup' }),
    identify: sentEvent('$identify', 'ada', now - HOUR_MS, {
      $anon_distinct_id: 'anon-ada',
      $set: { email: 'ada@tally.dev', name: 'Ada', username: 'ada', age: 36 },
    }),
    purchase: sentEvent('purchase', 'ada', now - 3 * DAY_MS, { price: 30, currency: 'EUR' }),
  };
  const bobPurchase = sentEvent('purchase', 'bob', now - 20 * DAY_MS, { price: 5 });
  const bobPageview = sentEvent('$pageview', 'bob', now - 100 * DAY_MS, { $current_url: 'https://tally.dev/pricing' });
  const carolSignup = sentEvent('signup', 'carol', now - 500 * DAY_MS, { plan: 'free' });
  const daveSignup = sentEvent('signup', 'dave', Date.parse('2001-02-03T04:05:06.789Z'), { plan: 'free' });
  // Thirty events sharing one timestamp, so pages must split ties.
  const tieTime = now - 10 * DAY_MS;
  const ticks = Array.from({ length: 30 }, (_, n) => sentEvent('tick', 'ticker', tieTime, { n }));
  const all = [ada.signup, ada.identify, ada.purchase, bobPurchase, bobPageview, carolSignup, daveSignup, ...ticks];
  const otherProjectEvent = sentEvent('secret', 'zed', now - HOUR_MS, { plan: 'pro' });

  let server: TallyServer;
  let secondProjectId: number;
  let bulkProjectId: number;
  let noQueryKey: string;
  let writeKey: string;
  let secondOnlyKey: string;
  let adaPerson: { id: number; uuid: string };
  let zedPersonId: number;
  let boughtActionId: number;
  let secondProjectActionId: number;
  const bulk = Array.from({ length: 10_001 }, (_, n) => sentEvent('bulk', `bulk-${n % 7}`, now - DAY_MS + n));

  before(async () => {
    server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: 'phc_events_one' });
    const second = server.createProject('Second');
    const bulkProject = server.createProject('Bulk');
    secondProjectId = second.id;
    bulkProjectId = bulkProject.id;
    server.personalApiKey = server.createKey('*');
    noQueryKey = server.createKey('person:read,event_definition:read');
    writeKey = server.createKey('query:write');
    secondOnlyKey = server.createKey('query:read', [second.id]);
    await server.start();

    await send(server, 'phc_events_one', all);
    await send(server, second.api_token, [otherProjectEvent]);
    await send(server, bulkProject.api_token, bulk);

    const persons = await server.get('/api/projects/1/persons/?distinct_id=ada');
    adaPerson = { id: persons.body.results[0].id, uuid: persons.body.results[0].uuid };
    zedPersonId = (await server.get(`/api/projects/${secondProjectId}/persons/?distinct_id=zed`)).body.results[0].id;
    const action = await server.post('/api/projects/1/actions/', {
      name: 'Bought over 10',
      steps: [{ event: 'purchase', properties: [{ key: 'price', value: 10, operator: 'gt', type: 'event' }] }],
    });
    assert.equal(action.status, 201, action.text);
    boughtActionId = action.body.id;
    const foreign = await server.post(`/api/projects/${secondProjectId}/actions/`, { name: 'Secret', steps: [{ event: 'secret' }] });
    secondProjectActionId = foreign.body.id;
  });
  after(() => server.dispose());

  async function list(query = '', path = BASE) {
    const response = await server.get(`${path}${query}`);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** Every event `next` leads to, page by page, with the number of pages. */
  async function followAll(query: string, path = BASE) {
    const seen: string[] = [];
    let pages = 0;
    let url: string | null = `${path}${query}`;
    while (url) {
      const response: ApiResponse = await server.get(url);
      assert.equal(response.status, 200, response.text);
      seen.push(...ids(response.body));
      pages += 1;
      url = response.body.next === null ? null : relative(server, response.body.next);
      assert.ok(pages <= 50, 'next links must end');
    }
    return { seen, pages };
  }

  test('an event as PostHog shows it; person null unless asked for', async () => {
    const body = await list('?event=purchase&distinct_id=ada');
    assert.deepEqual(body, {
      next: null,
      results: [
        {
          id: ada.purchase.uuid,
          distinct_id: 'ada',
          properties: { price: 30, currency: 'EUR', $ip: '127.0.0.1' },
          event: 'purchase',
          timestamp: shown(ada.purchase),
          person: null,
          elements: [],
          elements_chain: '',
        },
      ],
    });
  });

  test('include_person: identification, the first distinct id, and only email, name and username', async () => {
    const body = await list('?include_person=true&event=purchase');
    assert.deepEqual(
      body.results.map((result: { id: string; person: unknown }) => [result.id, result.person]),
      [
        [ada.purchase.uuid, { is_identified: true, distinct_ids: ['anon-ada'], properties: { email: 'ada@tally.dev', name: 'Ada', username: 'ada' } }],
        [bobPurchase.uuid, { is_identified: false, distinct_ids: ['bob'], properties: {} }],
      ],
    );
    assert.deepEqual(
      (await list('?include_person=0&event=purchase')).results.map((result: { person: unknown }) => result.person),
      [null, null],
    );
  });

  test('newest first by default, oldest first with orderBy, across all history', async () => {
    assert.deepEqual(ids(await list('?limit=100')), inListOrder(all));
    assert.deepEqual(ids(await list(`?limit=100&orderBy=${encodeURIComponent('["-timestamp"]')}`)), inListOrder(all));
    assert.deepEqual(ids(await list(`?limit=100&orderBy=${encodeURIComponent('["timestamp"]')}`)), inListOrder(all, false));
  });

  test('next yields every event exactly once, ties split across pages, in both orders', async () => {
    const newest = await followAll('?limit=7');
    assert.deepEqual(newest.seen, inListOrder(all));
    assert.equal(newest.pages, 6);
    const oldest = await followAll(`?limit=7&orderBy=${encodeURIComponent('["timestamp"]')}`);
    assert.deepEqual(oldest.seen, inListOrder(all, false));
    const ties = await followAll('?event=tick&limit=4');
    assert.deepEqual(ties.seen, inListOrder(ticks));
    assert.equal(ties.pages, 8);
  });

  test('an exactly full last page has no next', async () => {
    const first = await list('?event=tick&limit=15');
    assert.equal(first.results.length, 15);
    const second = await server.get(relative(server, first.next));
    assert.deepEqual(ids(second.body), inListOrder(ticks).slice(15));
    assert.equal(second.body.next, null);
    assert.equal((await list('?event=tick&limit=30')).next, null);
  });

  test('the next link keeps the other parameters and replaces offset with a cursor', async () => {
    const body = await list('?event=tick&limit=2&offset=3&include_person=true');
    assert.deepEqual(ids(body), inListOrder(ticks).slice(3, 5));
    const next = new URL(body.next);
    assert.equal(`${next.origin}${next.pathname}`, `${server.url}${BASE}`);
    assert.deepEqual([...next.searchParams.keys()], ['event', 'limit', 'include_person', 'cursor']);
    const following = await server.get(relative(server, body.next));
    assert.deepEqual(ids(following.body), inListOrder(ticks).slice(5, 7));
    assert.deepEqual(following.body.results[0].person, { is_identified: false, distinct_ids: ['ticker'], properties: {} });
  });

  test('offset skips events, up to 50000', async () => {
    assert.deepEqual(ids(await list('?limit=3&offset=2')), inListOrder(all).slice(2, 5));
    assert.deepEqual(await list('?offset=50000'), { next: null, results: [] });
    const tooFar = await server.get(`${BASE}?offset=50001`);
    assert.equal(tooFar.status, 400);
    assert.deepEqual(tooFar.body, validationError('offset', 'offset can be at most 50000; follow next to read further.'));
  });

  test('limit defaults to 100 and is clamped to 10000', async () => {
    const bulkPath = `/api/projects/${bulkProjectId}/events/`;
    const newestFirst = inListOrder(bulk);
    const byDefault = await list('', bulkPath);
    assert.deepEqual(ids(byDefault), newestFirst.slice(0, 100));
    const clamped = await list('?limit=50000', bulkPath);
    assert.equal(clamped.results.length, 10_000);
    assert.deepEqual(ids(clamped), newestFirst.slice(0, 10_000));
    const rest = await server.get(relative(server, clamped.next));
    assert.deepEqual(rest.body, { next: null, results: [rest.body.results[0]] });
    assert.equal(rest.body.results[0].id, newestFirst[10_000]);
    assert.equal(new URL(clamped.next).searchParams.get('limit'), '50000');
  });

  test('event, distinct_id and person_id (integer id or UUID: every distinct id of the person)', async () => {
    assert.deepEqual(ids(await list('?event=signup')), inListOrder([ada.signup, carolSignup, daveSignup]));
    assert.deepEqual(ids(await list('?distinct_id=bob')), [bobPurchase.uuid, bobPageview.uuid]);
    const adaEvents = [ada.identify.uuid, ada.signup.uuid, ada.purchase.uuid];
    assert.deepEqual(ids(await list(`?person_id=${adaPerson.id}`)), adaEvents);
    assert.deepEqual(ids(await list(`?person_id=${adaPerson.uuid}`)), adaEvents);
    assert.deepEqual(ids(await list(`?person_id=${adaPerson.uuid.toUpperCase()}`)), adaEvents);
    assert.deepEqual(await list('?person_id=999999'), { next: null, results: [] });
    assert.deepEqual(await list(`?person_id=${randomUUID()}`), { next: null, results: [] });
    assert.deepEqual(await list('?person_id=99999999999999999999'), { next: null, results: [] });
  });

  test('action_id: the events matching the action', async () => {
    assert.deepEqual(ids(await list(`?action_id=${boughtActionId}`)), [ada.purchase.uuid]);
    assert.deepEqual(await list('?action_id=999999'), { next: null, results: [] });
    assert.deepEqual(await list('?action_id=99999999999999'), { next: null, results: [] });
  });

  test('properties: event and person filters, lists and AND/OR groups', async () => {
    const free = [{ key: 'plan', value: 'free', type: 'event' }];
    assert.deepEqual(ids(await list(`?properties=${encodeURIComponent(JSON.stringify(free))}`)), [carolSignup.uuid, daveSignup.uuid]);
    const adaByEmail = [{ key: 'email', value: 'ada@tally.dev', type: 'person' }];
    assert.deepEqual(ids(await list(`?properties=${encodeURIComponent(JSON.stringify(adaByEmail))}`)), [ada.identify.uuid, ada.signup.uuid, ada.purchase.uuid]);
    const either = {
      type: 'OR',
      values: [
        { type: 'AND', values: [{ key: 'price', value: '5', type: 'event' }] },
        { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'event' }] },
      ],
    };
    assert.deepEqual(ids(await list(`?properties=${encodeURIComponent(JSON.stringify(either))}`)), [ada.signup.uuid, bobPurchase.uuid]);
    const urlContains = [{ key: '$current_url', value: 'pricing', operator: 'icontains', type: 'event' }];
    assert.deepEqual(ids(await list(`?properties=${encodeURIComponent(JSON.stringify(urlContains))}`)), [bobPageview.uuid]);
  });

  test('after and before: exclusive bounds, ISO or relative', async () => {
    const afterPurchase = await list(`?after=${encodeURIComponent(ada.purchase.timestamp)}`);
    assert.deepEqual(ids(afterPurchase), [ada.identify.uuid, ada.signup.uuid]);
    const atSignup = encodeURIComponent(ada.signup.timestamp);
    assert.deepEqual(ids(await list(`?before=${atSignup}&after=${encodeURIComponent(new Date(now - 4 * DAY_MS).toISOString())}`)), [ada.purchase.uuid]);
    assert.deepEqual(ids(await list('?after=-4d')), [ada.identify.uuid, ada.signup.uuid, ada.purchase.uuid]);
    assert.deepEqual(ids(await list('?after=-30d&before=-15d')), [bobPurchase.uuid]);
    // Airbyte's format: microseconds and a +0000 offset.
    const airbyte = (at: number) => new Date(at).toISOString().replace('Z', '000+0000');
    const slice = await list(`?after=${encodeURIComponent(airbyte(now - 600 * DAY_MS))}&before=${encodeURIComponent(airbyte(now - 50 * DAY_MS))}`);
    assert.deepEqual(ids(slice), [bobPageview.uuid, carolSignup.uuid]);
    assert.deepEqual(ids(await list('?before=2001-02-04')), [daveSignup.uuid]);
    assert.deepEqual(await list('?after=0001-01-01T00:00:00Z&before=1000-01-01'), { next: null, results: [] });
    assert.deepEqual(ids(await list('?after=0001-01-01T00:00:00Z&before=9999-12-31&event=signup')), inListOrder([ada.signup, carolSignup, daveSignup]));
  });

  test('bad parameters are 400s naming them', async () => {
    const cases: [string, object][] = [
      ['limit=ten', validationError('limit', 'A valid integer is required.', 'invalid')],
      ['offset=-1', validationError('offset', 'A valid integer is required.', 'invalid')],
      ['person_id=ada', validationError('person_id', 'person_id must be the integer id or the UUID of a person.')],
      ['action_id=bought', validationError('action_id', 'A valid integer is required.', 'invalid')],
      ['properties=nope', validationError('properties', 'Properties are unparsable!')],
      ['properties=%7B%22a%22', validationError('properties', 'Properties are unparsable!')],
      ['after=yesterday', validationError('after', 'Unable to parse after "yesterday": use an ISO date-time or a relative date such as -7d.')],
      ['before=2024-13-01', validationError('before', 'Unable to parse before "2024-13-01": use an ISO date-time or a relative date such as -7d.')],
      ['after=-99999999999d', validationError('after', 'Unable to parse after "-99999999999d": use an ISO date-time or a relative date such as -7d.')],
      ['orderBy=%5B%22event%22%5D', validationError('orderBy', 'orderBy must be ["-timestamp"] or ["timestamp"].')],
      ['orderBy=-timestamp', validationError('orderBy', 'orderBy must be ["-timestamp"] or ["timestamp"].')],
      ['include_person=yes', validationError('include_person', 'Must be a valid boolean.', 'invalid')],
      ['cursor=abc', validationError('cursor', 'Invalid cursor: use the next link of a previous page.', 'invalid')],
      [
        `cursor=${Buffer.from(JSON.stringify(['0001-01-01 00:00:00.000000', randomUUID()])).toString('base64url')}`,
        validationError('cursor', 'Invalid cursor: use the next link of a previous page.', 'invalid'),
      ],
      [
        `properties=${encodeURIComponent(JSON.stringify([{ key: 'id', value: 424242, type: 'cohort' }]))}`,
        validationError('properties', 'Cohort 424242 does not exist.'),
      ],
    ];
    for (const [query, error] of cases) {
      const response = await server.get(`${BASE}?${query}`);
      assert.equal(response.status, 400, query);
      assert.deepEqual(response.body, error, query);
    }
  });

  test('one event by UUID', async () => {
    const response = await server.get(`${BASE}${ada.purchase.uuid}/`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, (await list('?event=purchase&distinct_id=ada')).results[0]);
    const withPerson = await server.get(`${BASE}${ada.purchase.uuid.toUpperCase()}?include_person=true`);
    assert.deepEqual(withPerson.body, {
      ...response.body,
      person: { is_identified: true, distinct_ids: ['anon-ada'], properties: { email: 'ada@tally.dev', name: 'Ada', username: 'ada' } },
    });
    const notUuid = await server.get(`${BASE}not-a-uuid/`);
    assert.equal(notUuid.status, 400);
    assert.deepEqual(notUuid.body, validationError('id', 'Invalid UUID: an event id is the UUID of the event.', 'invalid'));
    const unknown = await server.get(`${BASE}${randomUUID()}/`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, ERRORS.notFound);
  });

  test("another project's events, persons and actions are never seen", async () => {
    const foreign = await server.get(`${BASE}${otherProjectEvent.uuid}/`);
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, ERRORS.notFound);
    assert.equal((await server.get(`/api/projects/${secondProjectId}/events/${otherProjectEvent.uuid}/`)).status, 200);
    assert.deepEqual(ids(await list('', `/api/projects/${secondProjectId}/events/`)), [otherProjectEvent.uuid]);
    assert.ok(!ids(await list('?limit=1000')).includes(otherProjectEvent.uuid));
    assert.deepEqual(await list('?event=secret'), { next: null, results: [] });
    assert.deepEqual(await list(`?person_id=${zedPersonId}`), { next: null, results: [] });
    assert.deepEqual(await list(`?action_id=${secondProjectActionId}`), { next: null, results: [] });
  });

  test("scope query:read (query:write implies it) and the key's projects", async () => {
    for (const path of [BASE, `${BASE}${ada.purchase.uuid}/`]) {
      const denied = await server.get(path, { key: noQueryKey });
      assert.equal(denied.status, 403);
      assert.deepEqual(denied.body, ERRORS.missingScope('query:read'));
      assert.equal((await server.get(path, { key: writeKey })).status, 200);
      const otherProject = await server.get(path, { key: secondOnlyKey });
      assert.equal(otherProject.status, 403);
      assert.deepEqual(otherProject.body, ERRORS.permissionDenied('API key does not have access to the requested project: ID 1.'));
    }
    assert.equal((await server.get(`/api/projects/${secondProjectId}/events/`, { key: secondOnlyKey })).status, 200);
    assert.equal((await server.get(BASE, { key: null })).status, 401);
  });

  test('paths with and without the trailing slash, and under /api/environments/', async () => {
    assert.deepEqual(ids(await list('?event=purchase', '/api/projects/1/events')), [ada.purchase.uuid, bobPurchase.uuid]);
    assert.equal((await server.get(`/api/projects/1/events/${ada.purchase.uuid}`)).body.id, ada.purchase.uuid);
    const environments = await list('?event=purchase&limit=1', '/api/environments/1/events/');
    assert.deepEqual(ids(environments), [ada.purchase.uuid]);
    assert.ok(environments.next.startsWith(`${server.url}/api/environments/1/events/?`), environments.next);
    assert.deepEqual(ids(await list('', relative(server, environments.next))), [bobPurchase.uuid]);
    assert.equal((await server.get(`/api/environments/1/events/${ada.purchase.uuid}/`)).body.id, ada.purchase.uuid);
  });
});
