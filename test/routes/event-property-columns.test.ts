import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { materializedColumnName } from '../../src/query/materialized-properties.js';
import { openStores, type OpenStores } from '../../src/stores.js';
import { tempDataDir } from '../support/tally.js';

const directory = tempDataDir('tally-mat-');
after(() => fs.rmSync(directory, { recursive: true, force: true }));

const HOSTILE_KEY = `tier "x" 'ü' \\ {y:String}`;

interface Running {
  stores: OpenStores;
  app: FastifyInstance;
  key: string;
  token: string;
}

async function start(credentials?: { key: string; token: string }): Promise<Running> {
  const stores = await openStores(loadConfig({ TALLY_DATA_DIR: directory, LOG_LEVEL: 'error' }));
  const app = await buildApp(stores.context, { logLevel: 'silent' });
  const key = credentials?.key ?? stores.bootstrap!.personalApiKey;
  const token = credentials?.token ?? stores.bootstrap!.projectToken;
  return { stores, app, key, token };
}

async function stop(running: Running): Promise<void> {
  await running.app.close();
  await running.stores.close();
}

async function capture(running: Running, events: { plan?: unknown; browser: string; tier?: string }[]): Promise<void> {
  const at = new Date(Date.now() - 60 * 60 * 1000).toISOString();
  const batch = events.map((entry, index) => {
    const properties: Record<string, unknown> = { $browser: entry.browser };
    if ('plan' in entry) properties.plan = entry.plan;
    if (entry.tier !== undefined) properties[HOSTILE_KEY] = entry.tier;
    return { event: 'order', distinct_id: `user-${index}`, timestamp: at, properties };
  });
  const response = await running.app.inject({ method: 'POST', url: '/batch/', payload: { api_key: running.token, batch } });
  assert.equal(response.statusCode, 200, response.body);
}

async function get(running: Running, url: string): Promise<Record<string, unknown>> {
  const response = await running.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${running.key}` } });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/** Counts by `$browser` of the orders whose plan is exactly 'pro', through the trends endpoint. */
async function proOrdersByBrowser(running: Running): Promise<Record<string, number>> {
  const query = new URLSearchParams({
    events: JSON.stringify([{ id: 'order' }]),
    properties: JSON.stringify([{ key: 'plan', value: 'pro', type: 'event' }]),
    breakdown: '$browser',
    date_from: '-7d',
  });
  const { result } = (await get(running, `/api/projects/1/insights/trend/?${query}`)) as { result: { breakdown_value: string; count: number }[] };
  return Object.fromEntries(result.map((series) => [series.breakdown_value, series.count]));
}

/** Orders whose hostile-keyed property is 'gold', and the sum of their numeric plans, through the trends endpoint. */
async function goldOrders(running: Running): Promise<{ count: number; planSum: number }> {
  const base = { properties: JSON.stringify([{ key: HOSTILE_KEY, value: 'gold', type: 'event' }]), date_from: '-7d', display: 'BoldNumber' };
  const count = (await get(running, `/api/projects/1/insights/trend/?${new URLSearchParams({ ...base, events: JSON.stringify([{ id: 'order' }]) })}`)) as {
    result: { aggregated_value: number }[];
  };
  const sum = (await get(
    running,
    `/api/projects/1/insights/trend/?${new URLSearchParams({ ...base, events: JSON.stringify([{ id: 'order', math: 'sum', math_property: 'plan' }]) })}`,
  )) as { result: { aggregated_value: number }[] };
  return { count: count.result[0]!.aggregated_value, planSum: sum.result[0]!.aggregated_value };
}

async function listedProOrders(running: Running): Promise<number> {
  const query = new URLSearchParams({ event: 'order', properties: JSON.stringify([{ key: 'plan', value: 'pro', type: 'event' }]) });
  const { results } = (await get(running, `/api/projects/1/events/?${query}`)) as { results: unknown[] };
  return results.length;
}

async function eventColumns(running: Running): Promise<string[]> {
  const rows = await running.stores.context.warehouse.query<{ name: string }>(
    `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND startsWith(name, 'mat_') ORDER BY name`,
  );
  return rows.map((row) => row.name);
}

/** Waits until the columns exist and ClickHouse has stored them in every part. */
async function columnsStored(running: Running, expected: string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [pending] = await running.stores.context.warehouse.query<{ pending: string }>(
      `SELECT count() AS pending FROM system.mutations WHERE database = currentDatabase() AND table = 'events' AND NOT is_done`,
    );
    if (JSON.stringify(await eventColumns(running)) === JSON.stringify(expected) && Number(pending!.pending) === 0) return;
    assert.ok(Date.now() < deadline, 'the event property columns were not added and stored within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('filters, breakdowns and maths on event properties give the same numbers from the JSON and from the columns they get', async () => {
  const expectedColumns = ['$browser', 'plan', HOSTILE_KEY].map((key) => materializedColumnName('mat_', key)).sort();
  let running = await start();
  const credentials = { key: running.key, token: running.token };
  try {
    await capture(running, [
      { plan: 'pro', browser: 'Chrome' },
      { plan: 'pro', browser: 'Chrome' },
      { plan: 'pro', browser: 'Chrome', tier: 'gold' },
      { plan: 'pro', browser: 'Firefox' },
      { plan: 'pro', browser: 'Firefox' },
      { plan: 'free', browser: 'Chrome' },
      { browser: 'Chrome' },
      { plan: 5, browser: 'Safari', tier: 'gold' },
      { plan: '2.5', browser: 'Safari', tier: 'gold' },
      { plan: 'pro ', browser: 'Safari' },
    ]);
    assert.deepEqual(await eventColumns(running), []);
    // Read from the JSON: these reads are what ask for the columns.
    assert.deepEqual(await proOrdersByBrowser(running), { Chrome: 3, Firefox: 2 });
    assert.deepEqual(await goldOrders(running), { count: 3, planSum: 7.5 });
    assert.equal(await listedProOrders(running), 5);

    await columnsStored(running, expectedColumns);
    assert.deepEqual(await proOrdersByBrowser(running), { Chrome: 3, Firefox: 2 });
    assert.deepEqual(await goldOrders(running), { count: 3, planSum: 7.5 });
    assert.equal(await listedProOrders(running), 5);

    // Events stored after the columns exist get their values at insert.
    await capture(running, [
      { plan: 'pro', browser: 'Safari' },
      { plan: 'pro', browser: 'Safari' },
      { plan: 'pro', browser: 'Safari', tier: 'gold' },
      { plan: 'pro', browser: 'Safari' },
      { plan: 'Pro', browser: 'Chrome' },
    ]);
    assert.deepEqual(await proOrdersByBrowser(running), { Safari: 4, Chrome: 3, Firefox: 2 });
    assert.deepEqual(await goldOrders(running), { count: 4, planSum: 7.5 });
    assert.equal(await listedProOrders(running), 9);

    await stop(running);
    running = await start(credentials);
    assert.deepEqual(await eventColumns(running), expectedColumns);
    assert.deepEqual(await proOrdersByBrowser(running), { Safari: 4, Chrome: 3, Firefox: 2 });
    assert.deepEqual(await goldOrders(running), { count: 4, planSum: 7.5 });
    assert.equal(await listedProOrders(running), 9);
  } finally {
    await stop(running);
  }
});
