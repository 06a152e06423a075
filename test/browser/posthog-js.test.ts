import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { readStoredData, type StoredData } from '../support/stored-data.js';
import { TallyServer } from '../support/tally.js';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'phc_browser_shop';

/**
 * A shop's page on its own origin, set up as PostHog's snippet sets a site up: a stand-in
 * `posthog` that queues `init`, and `<api_host>/static/array.js` loaded asynchronously, which
 * replays the queue. The init is posthog-js's default.
 */
function shopPage(apiHost: string): string {
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>Shop</title>
<script>
(function () {
  var queued = [];
  queued._i = [];
  queued.init = function (token, config, name) { queued._i.push([token, config, name]); };
  window.posthog = queued;
  var script = document.createElement('script');
  script.src = ${JSON.stringify(apiHost)} + '/static/array.js';
  script.async = true;
  script.crossOrigin = 'anonymous';
  document.head.appendChild(script);
  window.posthog.init(${JSON.stringify(TOKEN)}, { api_host: ${JSON.stringify(apiHost)} });
})();
</script>
</head>
<body>
<h1>Shop</h1>
<button id="buy" type="button">Buy now</button>
</body>
</html>`;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

interface SentRequest {
  url: URL;
  method: string;
  body: Buffer;
}

/** posthog-js, unmodified, in headless Chromium, against a running Tally. */
describe('posthog-js in a browser', () => {
  let tally: TallyServer;
  let site: http.Server | null = null;
  let browser: Browser | null = null;
  let page: Page;
  let siteUrl = '';
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-chromium-'));
  const sent: SentRequest[] = [];
  const problems: string[] = [];
  let data: StoredData;

  before(async () => {
    if (!fs.existsSync(CHROMIUM)) {
      throw new Error(`This test drives Chromium at ${CHROMIUM}, which is not installed: run \`apt-get install -y chromium\` (.ci/run installs it).`);
    }
    tally = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: TOKEN });
    await tally.start();
    site = http.createServer((request, response) => {
      if (request.url !== '/') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(shopPage(tally.url));
    });
    // localhost, where Tally is 127.0.0.1: another host and port, so every call is cross-origin.
    siteUrl = `http://localhost:${await listen(site)}/`;

    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      userDataDir: profile,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        // As in a browser a person drives: posthog-js drops every event of a browser that says it
        // is automated (navigator.webdriver), as it does for bots.
        '--disable-blink-features=AutomationControlled',
      ],
    });
    page = await browser.newPage();
    // Likewise for a user agent that says it is headless.
    await page.setUserAgent({ userAgent: (await browser.userAgent()).replace('HeadlessChrome', 'Chrome') });
    // The protocol's own record of each request has its body as bytes, so gzip can be told apart.
    const network = await page.createCDPSession();
    network.on('Network.requestWillBeSent', ({ request }) => {
      const body = Buffer.concat((request.postDataEntries ?? []).map((entry) => Buffer.from(entry.bytes ?? '', 'base64')));
      sent.push({ url: new URL(request.url), method: request.method, body });
    });
    await network.send('Network.enable');
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.request().method()} ${response.url()}`);
    });

    await page.goto(siteUrl, { waitUntil: 'load' });
    // Autocapture starts once posthog-js has Tally's remote config.
    await page.waitForFunction(() => (window as unknown as { posthog?: { autocapture?: { isEnabled?: boolean } } }).posthog?.autocapture?.isEnabled === true, {
      timeout: 30_000,
    });
    await page.click('#buy');
    // Clicks over a second apart are not a rage click.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const button = await page.$('#buy');
    const box = (await button!.boundingBox())!;
    for (let click = 0; click < 3; click++) await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);

    const expected = [
      { id: '$pageview', count: 1 },
      { id: '$autocapture', count: 4 },
      { id: '$rageclick', count: 1 },
    ];
    const query = `events=${encodeURIComponent(JSON.stringify(expected.map(({ id }) => ({ id }))))}&date_from=-1d`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const trend = await tally.get(`/api/projects/1/insights/trend/?${query}`);
      const counts = (trend.body.result as { action: { id: string }; count: number }[]).map((series) => series.count);
      if (counts.every((count, index) => count >= expected[index]!.count)) break;
      if (Date.now() > deadline) {
        const requests = sent.map(({ method, url }) => `${method} ${url.href}`);
        throw new Error(`events did not arrive: ${JSON.stringify({ counts, requests, problems }, null, 1)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await browser.close();
    browser = null;
    await tally.stop();
    data = await readStoredData(tally);
  });

  after(async () => {
    await browser?.close();
    if (site) await new Promise((resolve) => site!.close(resolve));
    await tally?.dispose();
    fs.rmSync(profile, { recursive: true, force: true });
  });

  test('the page view, the clicks and the rage click are stored', () => {
    const named = (name: string) => data.events.filter((event) => event.event === name);
    assert.equal(named('$pageview').length, 1);
    assert.equal(named('$pageview')[0]!.properties.$current_url, siteUrl);
    assert.equal(named('$pageview')[0]!.properties.$lib, 'web');
    const clicks = named('$autocapture');
    assert.equal(clicks.length, 4);
    for (const click of clicks) {
      assert.equal(click.properties.$event_type, 'click');
      assert.match(click.elements_chain, /^button.*attr__id="buy"/);
      assert.match(click.elements_chain, /text="Buy now"/);
    }
    assert.equal(named('$rageclick').length, 1);
    const distinctIds = new Set(data.events.map((event) => event.distinct_id));
    assert.equal(distinctIds.size, 1, 'one visitor');
  });

  test('posthog-js loads its bundle and config from Tally, and gzips every capture after the first', () => {
    const toTally = sent.filter(({ url }) => url.origin === new URL(tally.url).origin);
    const paths = toTally.map(({ url }) => url.pathname);
    assert.equal(paths.filter((pathname) => pathname === '/static/array.js').length, 1, paths.join(' '));
    assert.equal(paths.filter((pathname) => pathname.startsWith(`/array/${TOKEN}/config`)).length, 1, paths.join(' '));
    const captures = toTally.filter(({ url, method }) => method === 'POST' && ['/e/', '/i/v0/e/', '/batch/'].includes(url.pathname));
    assert.ok(captures.length >= 2, `capture requests: ${captures.map(({ url }) => url.href).join(' ')}`);
    // The config's analytics endpoint is where events go once it has arrived.
    assert.equal(captures.at(-1)!.url.pathname, '/i/v0/e/');
    for (const { url, body } of captures.slice(1)) {
      assert.deepEqual([...body.subarray(0, 2)], [0x1f, 0x8b], `${url.href} is gzip`);
      const payload = JSON.parse(zlib.gunzipSync(body).toString('utf8')) as { api_key: string; batch: unknown[] };
      assert.equal(payload.api_key, TOKEN);
      assert.ok(payload.batch.length > 0, url.href);
    }
  });

  test('nothing failed: no console error, no failed or refused request', () => {
    assert.deepEqual(problems, []);
  });
});
