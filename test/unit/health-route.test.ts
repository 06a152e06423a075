import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import type { CaptureLog } from '../../src/capture/capture-log.js';
import { IngestionHealth } from '../../src/capture/ingestion-health.js';
import { IngestionStats } from '../../src/capture/ingestion-stats.js';
import { healthRoutes } from '../../src/http/routes/health.js';

/** A capture log whose store does not answer: only `backlog` is asked by the health check. */
const unreadableLog = {
  backlog: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
} as unknown as CaptureLog;

test('a capture log that cannot be read makes /_health a 503 saying so, not a 500', async () => {
  const app = Fastify({ logger: false });
  await app.register(async (health) => healthRoutes(health, new IngestionHealth(unreadableLog, new IngestionStats(), 300)));
  const answer = await app.inject({ method: 'GET', url: '/_health' });
  assert.deepEqual([answer.statusCode, answer.json()], [503, { status: 'store_unavailable' }]);
  await app.close();
});

test('the stall limit counts from the later of the last processing and the oldest waiting event', async () => {
  const now = 1_000_000;
  const stats = new IngestionStats();
  stats.lastProgressAt = now - 400_000;
  const waiting = (oldestReceivedAt: number) => ({ backlog: async () => ({ events: 10, oldestReceivedAt }) }) as unknown as CaptureLog;
  assert.deepEqual(await new IngestionHealth(waiting(now - 350_000), stats, 300).check(now), { lag_s: 350, backlog: 10, failing: true });
  assert.deepEqual(await new IngestionHealth(waiting(now - 200_000), stats, 300).check(now), { lag_s: 200, backlog: 10, failing: false });
  stats.lastProgressAt = now - 1000;
  assert.deepEqual(await new IngestionHealth(waiting(now - 350_000), stats, 300).check(now), { lag_s: 350, backlog: 10, failing: false });
  const empty = { backlog: async () => ({ events: 0, oldestReceivedAt: null }) } as unknown as CaptureLog;
  assert.deepEqual(await new IngestionHealth(empty, stats, 300).check(now), { lag_s: 0, backlog: 0, failing: false });
});
