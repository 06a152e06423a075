import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { ERRORS, TallyServer } from '../support/tally.js';

const ORIGIN = 'https://shop.example';

const posthogJsDir = path.dirname(createRequire(import.meta.url).resolve('posthog-js/package.json'));
const posthogJsVersion = (JSON.parse(fs.readFileSync(path.join(posthogJsDir, 'package.json'), 'utf8')) as { version: string }).version;

function configOf(token: string) {
  return {
    token,
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags: false,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    sessionRecording: false,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
    heatmaps: false,
    surveys: false,
    conversations: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
  };
}

function assertCors(headers: Headers, vary: string) {
  assert.equal(headers.get('access-control-allow-origin'), ORIGIN);
  assert.equal(headers.get('access-control-allow-credentials'), 'true');
  assert.equal(headers.get('vary'), vary);
}

/** A GET whose path is sent exactly as written (fetch would resolve `..` before sending). */
function rawGet(url: string, pathname: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { path: pathname, headers: { origin: ORIGIN } }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** What posthog-js asks of its api_host in a browser: the remote config, the bundles, and CORS on capture. */
describe('posthog-js remote config, bundles and CORS', () => {
  let server: TallyServer;
  let second: { id: number; api_token: string };

  before(async () => {
    server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: 'phc_remote_config_one' });
    server.projectToken = 'phc_remote_config_one';
    second = server.createProject('Second');
    server.personalApiKey = server.createKey('*');
    await server.start();
  });
  after(() => server.dispose());

  test('/array/<token>/config answers the project config as JSON, with CORS, without a key', async () => {
    const response = await server.get(`/array/${server.projectToken}/config`, { key: null, headers: { origin: ORIGIN } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(response.body, configOf(server.projectToken));
    assertCors(response.headers, 'Origin, Referer');
  });

  test('/array/<token>/config.js sets window._POSTHOG_REMOTE_CONFIG[token] for posthog-js', async () => {
    const response = await server.get(`/array/${server.projectToken}/config.js`, { key: null, headers: { origin: ORIGIN } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/javascript; charset=utf-8');
    assertCors(response.headers, 'Origin, Referer');
    const { siteApps: _siteApps, ...config } = configOf(server.projectToken);
    const window: Record<string, any> = { _POSTHOG_REMOTE_CONFIG: { phc_other: { config: {}, siteApps: [] } } };
    vm.runInNewContext(response.text, { window });
    assert.deepEqual(JSON.parse(JSON.stringify(window._POSTHOG_REMOTE_CONFIG)), {
      phc_other: { config: {}, siteApps: [] },
      [server.projectToken]: { config, siteApps: [] },
    });
  });

  test('every project answers its own config; the path works with a trailing slash', async () => {
    const response = await server.get(`/array/${second.api_token}/config/`, { key: null });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, configOf(second.api_token));
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.equal(response.headers.get('vary'), 'Origin, Referer');
    const script = await server.get(`/array/${second.api_token}/config.js/`, { key: null });
    assert.equal(script.status, 200);
    assert.ok(script.text.includes(`window._POSTHOG_REMOTE_CONFIG['${second.api_token}'] = {config: {"token":"${second.api_token}",`));
  });

  test('a token with other characters or over 200 long is 400 Invalid token, with CORS', async () => {
    for (const token of ['phc_a.b', 'phc%20x', 'phc_%3Cscript%3E', 'a'.repeat(201)]) {
      for (const file of ['config', 'config.js']) {
        const response = await server.get(`/array/${token}/${file}`, { key: null, headers: { origin: ORIGIN } });
        assert.equal(response.status, 400, `${token}/${file}`);
        assert.deepEqual(response.body, { type: 'validation_error', code: 'invalid_input', detail: 'Invalid token', attr: 'token' });
        assertCors(response.headers, 'Origin, Referer');
      }
    }
    const longest = await server.get(`/array/${'a'.repeat(200)}/config`, { key: null });
    assert.equal(longest.status, 404);
  });

  test('an unknown token, a personal API key and unknown files are 404, with CORS', async () => {
    for (const pathname of [
      '/array/phc_unknown/config',
      '/array/phc_unknown/config.js',
      `/array/${server.personalApiKey}/config`,
      `/array/${server.projectToken}/array.js`,
      `/array/${server.projectToken}`,
    ]) {
      const response = await server.get(pathname, { key: null, headers: { origin: ORIGIN } });
      assert.equal(response.status, 404, pathname);
      assert.deepEqual(response.body, ERRORS.notFound);
      assertCors(response.headers, 'Origin, Referer');
    }
  });

  test('a preflight of the config answers with the allowed methods and headers', async () => {
    const response = await server.request('OPTIONS', `/array/${server.projectToken}/config`, {
      key: null,
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(response.status, 204);
    assertCors(response.headers, 'Origin, Referer');
    assert.equal(response.headers.get('access-control-allow-methods'), 'GET, POST, OPTIONS');
    assert.equal(response.headers.get('access-control-allow-headers'), 'content-type');
  });

  test('/static/<name>.js serves the bundle of the installed posthog-js, gzipped when accepted', async () => {
    for (const name of ['array', 'array.full', 'surveys', 'web-vitals', 'dead-clicks-autocapture', 'exception-autocapture', 'lazy-recorder']) {
      const expected = fs.readFileSync(path.join(posthogJsDir, 'dist', `${name}.js`));
      const response = await fetch(`${server.url}/static/${name}.js?v=${posthogJsVersion}`, { headers: { origin: ORIGIN } });
      assert.equal(response.status, 200, name);
      assert.equal(response.headers.get('content-type'), 'application/javascript; charset=utf-8');
      assert.equal(response.headers.get('content-encoding'), 'gzip');
      assert.equal(response.headers.get('cache-control'), 'public, max-age=3600');
      assertCors(response.headers, 'Origin, Accept-Encoding');
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(expected), `${name}.js is the package's file`);
    }
    const plain = await rawGetBody(server.url, '/static/surveys.js');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.body.equals(fs.readFileSync(path.join(posthogJsDir, 'dist', 'surveys.js'))));
    assert.ok(zlib.gunzipSync((await rawGetBody(server.url, '/static/surveys.js', { 'accept-encoding': 'gzip' })).body).equals(plain.body));
  });

  test('/static/<version>/<name>.js serves the installed bundle, for a year at its own version', async () => {
    const expected = fs.readFileSync(path.join(posthogJsDir, 'dist', 'array.js'));
    const response = await fetch(`${server.url}/static/${posthogJsVersion}/array.js`, { headers: { origin: ORIGIN } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assertCors(response.headers, 'Origin, Accept-Encoding');
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(expected));
    // An SDK bundled at another version asks its own first; the unversioned fallback would serve the same.
    for (const version of ['1.0.0', '1.300.12', '2.0.0-beta.1']) {
      const other = await fetch(`${server.url}/static/${version}/array.js`, { headers: { origin: ORIGIN } });
      assert.equal(other.status, 200, version);
      assert.equal(other.headers.get('cache-control'), 'public, max-age=3600');
      assert.ok(Buffer.from(await other.arrayBuffer()).equals(expected));
    }
    for (const version of ['latest', '1.0', '1.0.0.0', 'v1.0.0', '1.0.0-']) {
      const bad = await server.get(`/static/${version}/array.js`, { key: null, headers: { origin: ORIGIN } });
      assert.equal(bad.status, 404, version);
      assert.deepEqual(bad.body, ERRORS.notFound);
      assertCors(bad.headers, 'Origin, Accept-Encoding');
    }
  });

  test('a bundle answers 304 to its ETag', async () => {
    const first = await fetch(`${server.url}/static/web-vitals.js`);
    const etag = first.headers.get('etag');
    assert.match(etag ?? '', /^"[A-Za-z0-9_-]{32}"$/);
    const again = await fetch(`${server.url}/static/web-vitals.js`, { headers: { 'if-none-match': etag!, origin: ORIGIN } });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('access-control-allow-origin'), ORIGIN);
  });

  test('only bundles are served: other files of the package, toolbar and paths out of it are 404 with CORS', async () => {
    for (const pathname of [
      '/static/toolbar.js',
      '/static/module.js',
      '/static/main.js',
      '/static/integrity.json',
      '/static/array.js.map',
      '/static/array',
      '/static/..%2Fpackage.json',
      '/static/..%2F..%2Fpackage.json',
      `/static/${posthogJsVersion}/..%2Fpackage.json`,
      '/static/%2E%2E%2Fdist%2Farray.js',
      '/static/a/b/c.js',
      '/static',
    ]) {
      const response = await server.get(pathname, { key: null, headers: { origin: ORIGIN } });
      assert.equal(response.status, 404, pathname);
      assert.deepEqual(response.body, ERRORS.notFound);
      assertCors(response.headers, 'Origin, Accept-Encoding');
    }
    for (const pathname of ['/static/../package.json', '/static/../../../package.json', '/static/./../dist/array.js']) {
      const response = await rawGet(server.url, pathname);
      assert.equal(response.status, 404, pathname);
    }
  });

  test('every answer of the capture paths carries CORS: success, 4xx, 404, 405 and preflights', async () => {
    const batch = { api_key: server.projectToken, batch: [{ event: 'cors', distinct_id: 'u1' }] };
    const ok = await server.post('/batch/', batch, { key: null, headers: { origin: ORIGIN } });
    assert.equal(ok.status, 200);
    assertCors(ok.headers, 'Origin');
    const answers = [
      await server.request('POST', '/e/', { key: null, rawBody: '{', headers: { origin: ORIGIN, 'content-type': 'application/json' } }),
      await server.post('/i/v0/e/', { api_key: 'phc_unknown', event: 'x', distinct_id: 'u1' }, { key: null, headers: { origin: ORIGIN } }),
      await server.post('/flags/?v=2', { distinct_id: 'u1' }, { key: null, headers: { origin: ORIGIN } }),
      await server.post('/decide/', { token: 'phc_unknown', distinct_id: 'u1' }, { key: null, headers: { origin: ORIGIN } }),
      await server.get('/batch/extra', { key: null, headers: { origin: ORIGIN } }),
      await server.get('/i/v0/e/unknown', { key: null, headers: { origin: ORIGIN } }),
      await server.request('PUT', '/capture/', { key: null, headers: { origin: ORIGIN } }),
      await server.request('DELETE', '/track', { key: null, headers: { origin: ORIGIN } }),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [400, 401, 401, 401, 404, 404, 405, 405],
    );
    for (const answer of answers) assertCors(answer.headers, 'Origin');
    for (const pathname of ['/batch/', '/e/?compression=gzip-js', '/i/v0/e/', '/capture', '/track/', '/engage/', '/flags/?v=2', '/decide/']) {
      const preflight = await server.request('OPTIONS', pathname, {
        key: null,
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-custom' },
      });
      assert.equal(preflight.status, 200, pathname);
      assertCors(preflight.headers, 'Origin');
      assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, POST, OPTIONS');
      assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type, x-custom');
    }
  });

  test('paths outside the SDK ones get no CORS headers', async () => {
    const response = await server.get('/api/projects/', { headers: { origin: ORIGIN } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    const event = await server.get('/events/', { key: null, headers: { origin: ORIGIN } });
    assert.equal(event.status, 404);
    assert.equal(event.headers.get('access-control-allow-origin'), null);
  });

  test('the OpenAPI document describes the config and bundle paths', async () => {
    const schema = await server.get('/api/schema/', { key: null });
    for (const pathname of ['/array/{token}/config', '/array/{token}/config.js', '/static/{file}', '/static/{version}/{file}']) {
      assert.ok(schema.body.paths[pathname]?.get, pathname);
    }
  });
});

/** A GET that keeps the body as bytes and sends only the headers given (fetch always accepts gzip). */
function rawGetBody(url: string, pathname: string, headers: Record<string, string> = {}) {
  return new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const request = http.request(url, { path: pathname, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}
