import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TallyServer } from '../support/tally.js';

/** The value of one sample of the Prometheus text, by its name and labels as written; null when absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

describe('Prometheus metrics on TALLY_METRICS_PORT', () => {
  const server = new TallyServer(undefined, { TALLY_METRICS_PORT: '0' });
  before(() => server.start());
  after(() => server.dispose());

  const scrape = async () => {
    const response = await fetch(server.metricsUrl);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    return response.text();
  };

  test('counters move with traffic: captures and events by endpoint and status, ingestion, API latency by route', async () => {
    assert.match(server.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const batch = (n: number) => Array.from({ length: n }, (_, index) => ({ event: 'metered', distinct_id: `m-${index}`, properties: { index } }));
    for (const size of [3, 4]) {
      const answer = await fetch(`${server.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: server.projectToken, batch: batch(size) }),
      });
      assert.equal(answer.status, 200);
    }
    const refused = await fetch(`${server.url}/e/`, { method: 'POST', body: JSON.stringify({ api_key: 'phc_not_a_project', event: 'x', distinct_id: 'y' }) });
    assert.equal(refused.status, 401);
    const counted = await server.post('/api/projects/1/query/', { query: { kind: 'HogQLQuery', query: "select count() from events where event = 'metered'" } });
    assert.deepEqual(counted.body.results, [[7]]);

    const text = await scrape();
    assert.equal(sample(text, 'tally_capture_events_total{endpoint="/batch"}'), 7);
    assert.equal(sample(text, 'tally_capture_requests_total{endpoint="/batch",status="200"}'), 2);
    assert.equal(sample(text, 'tally_capture_requests_total{endpoint="/e",status="401"}'), 1);
    assert.equal(sample(text, 'tally_ingestion_events_total'), 7);
    assert.ok((sample(text, 'tally_ingestion_batches_total') ?? 0) >= 1);
    assert.equal(sample(text, 'tally_ingestion_backlog_events'), 0);
    assert.equal(sample(text, 'tally_ingestion_lag_seconds'), 0);
    assert.equal(sample(text, 'tally_ingestion_failing'), 0);
    assert.equal(sample(text, 'tally_ingestion_consuming'), 1);
    assert.equal(sample(text, 'tally_dead_letter_events_total'), 0);
    assert.equal(sample(text, 'tally_http_request_duration_seconds_count{method="POST",route="/api/projects/:project_id/query/",status="200"}'), 1);
    assert.ok((sample(text, 'tally_warehouse_insert_duration_seconds_count') ?? 0) >= 1);
    assert.ok((sample(text, 'tally_process_resident_memory_bytes') ?? 0) > 50_000_000);
    assert.ok((sample(text, 'tally_nodejs_heap_size_used_bytes') ?? 0) > 0);
    assert.ok((sample(text, 'tally_catalog_size_bytes') ?? 0) > 0);
    assert.ok((sample(text, 'tally_warehouse_size_bytes') ?? 0) > 0);
    for (const line of text.split('\n')) {
      if (line !== '' && !line.startsWith('#')) assert.match(line, /^tally_/, 'every metric is prefixed tally_');
    }

    const again = await fetch(`${server.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: server.projectToken, batch: batch(5) }),
    });
    assert.equal(again.status, 200);
    await server.get('/api/projects/1/persons/?limit=1');
    const later = await scrape();
    assert.equal(sample(later, 'tally_capture_events_total{endpoint="/batch"}'), 12);
    assert.equal(sample(later, 'tally_ingestion_events_total'), 12);
  });

  test('only GET /metrics is served there, and the API port does not serve it', async () => {
    assert.equal((await fetch(server.metricsUrl.replace('/metrics', '/other'))).status, 404);
    assert.equal((await fetch(server.metricsUrl, { method: 'POST' })).status, 404);
    assert.equal((await server.get('/metrics', { key: null })).status, 404);
  });

  test('over HTTP, /_health answers {"status":"ok"} and /_health/ingestion the numbers; another method is a 405 in PostHog body', async () => {
    const health = await server.get('/_health', { key: null });
    assert.deepEqual([health.status, health.body], [200, { status: 'ok' }]);
    const ingestion = await server.get('/_health/ingestion', { key: null });
    assert.deepEqual([ingestion.status, ingestion.body], [200, { lag_s: 0, backlog: 0, failing: false }]);
    assert.match(ingestion.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const posted = await server.post('/_health/ingestion', { backlog: 0 }, { key: null });
    assert.deepEqual(
      [posted.status, posted.body],
      [405, { type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "POST" not allowed.', attr: null }],
    );
  });
});
