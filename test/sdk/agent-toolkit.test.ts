import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PostHogAgentToolkit } from '@posthog/agent-toolkit/tools';
import { TallyServer } from '../support/tally.js';

/** The analytics tools the toolkit offers once a key may use them: organizations, projects, definitions, insights, dashboards. */
const ANALYTICS_TOOLS = [
  'organizations-get',
  'organization-details-get',
  'projects-get',
  'event-definitions-list',
  'properties-list',
  'insights-get-all',
  'insight-get',
  'insight-create-from-query',
  'insight-update',
  'insight-delete',
  'dashboards-get-all',
  'dashboard-get',
  'dashboard-create',
  'dashboard-update',
  'dashboard-delete',
  'add-insight-to-dashboard',
];

type Toolkit = PostHogAgentToolkit;
type Tools = Awaited<ReturnType<Toolkit['getTools']>>;

/** Calls a tool as an agent would, and reads the JSON text it answers. */
async function call(toolkit: Toolkit, tools: Tools, name: string, params: Record<string, unknown> = {}): Promise<any> {
  const tool = tools.find((candidate) => candidate.name === name);
  assert.ok(tool, `the toolkit offers ${name}`);
  const answer = (await tool.handler(toolkit.getContext(), params as never)) as { content: { type: string; text: string }[] };
  return JSON.parse(answer.content[0]!.text);
}

/**
 * PostHog's agent toolkit (the MCP tools), unmodified, against Tally: it reads the key at
 * /api/personal_api_keys/@current to decide which tools to offer, the user at /api/users/@me/ for
 * the active organization and project, and then the analytics endpoints themselves.
 */
describe('@posthog/agent-toolkit', () => {
  const server = new TallyServer();
  let toolkit: Toolkit;
  let tools: Tools;

  before(async () => {
    await server.start();
    const batch = [
      { event: '$pageview', distinct_id: 'ann', properties: { $browser: 'Chrome', plan: 'pro' } },
      { event: '$pageview', distinct_id: 'bob', properties: { $browser: 'Safari', plan: 'free' } },
      { event: 'signed up', distinct_id: 'bob', properties: { source: 'ad' } },
    ];
    const captured = await server.request('POST', '/batch/', { key: null, body: { api_key: server.projectToken, batch } });
    assert.equal(captured.status, 200);
    toolkit = new PostHogAgentToolkit({ posthogApiToken: server.personalApiKey, posthogApiBaseUrl: server.url });
    tools = await toolkit.getTools();
  });
  after(() => server.dispose());

  test('a key with every scope is offered every tool, the analytics ones among them', () => {
    const names = tools.map((tool) => tool.name);
    assert.equal(names.length, 42, names.join(' '));
    for (const name of ANALYTICS_TOOLS) assert.ok(names.includes(name), name);
  });

  test('a key with fewer scopes is offered the tools those scopes allow', async () => {
    const scopes = ['insight:read', 'dashboard:read', 'organization:read', 'project:read', 'user:read'];
    const created = await server.post('/api/personal_api_keys/', { label: 'agent, read only', scopes });
    assert.equal(created.status, 201, created.text);
    const readOnly = new PostHogAgentToolkit({ posthogApiToken: created.body.value, posthogApiBaseUrl: server.url });
    const names = (await readOnly.getTools()).map((tool) => tool.name);
    assert.ok(names.includes('insights-get-all') && names.includes('dashboards-get-all') && names.includes('projects-get'), names.join(' '));
    assert.ok(!names.includes('insight-create-from-query') && !names.includes('dashboard-create'), names.join(' '));
  });

  test('organizations, projects and definitions', async () => {
    const organizations = await call(toolkit, tools, 'organizations-get');
    assert.deepEqual(
      organizations.map((organization: { name: string }) => organization.name),
      ['Default organization'],
    );
    const details = await call(toolkit, tools, 'organization-details-get');
    assert.equal(details.id, organizations[0].id);
    assert.deepEqual(await call(toolkit, tools, 'projects-get'), [{ id: 1, name: 'Default project', organization: organizations[0].id }]);
    const events = await call(toolkit, tools, 'event-definitions-list');
    assert.deepEqual(events.map((event: { name: string }) => event.name).sort(), ['$pageview', 'signed up']);
    const properties = await call(toolkit, tools, 'properties-list', { type: 'event', eventName: '$pageview' });
    assert.deepEqual(properties, [{ name: 'plan', property_type: 'String' }], 'core properties such as $browser are left out');
  });

  test('insights and dashboards: create, list, get, place on a dashboard, update, delete', async () => {
    const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } };
    const created = await call(toolkit, tools, 'insight-create-from-query', { data: { name: 'Pageviews', query, favorited: false } });
    assert.equal(created.name, 'Pageviews');
    assert.match(created.short_id, /^[A-Za-z0-9]{8}$/);
    assert.deepEqual(created.query, query);

    const listed = await call(toolkit, tools, 'insights-get-all');
    assert.deepEqual(
      listed.map((insight: { id: number }) => insight.id),
      [created.id],
    );
    const byShortId = await call(toolkit, tools, 'insight-get', { insightId: created.short_id });
    assert.equal(byShortId.id, created.id);

    const dashboard = await call(toolkit, tools, 'dashboard-create', { data: { name: 'Growth', description: 'What grows' } });
    assert.equal(dashboard.name, 'Growth');
    await call(toolkit, tools, 'add-insight-to-dashboard', { data: { insightId: created.short_id, dashboardId: dashboard.id } });
    const withTile = await call(toolkit, tools, 'dashboard-get', { dashboardId: dashboard.id });
    assert.deepEqual(
      withTile.tiles.map((tile: { insight: { short_id: string; name: string } | null }) => [tile.insight?.short_id, tile.insight?.name]),
      [[created.short_id, 'Pageviews']],
    );

    const renamed = await call(toolkit, tools, 'insight-update', { insightId: String(created.id), data: { name: 'Page views' } });
    assert.equal(renamed.name, 'Page views');
    const updatedDashboard = await call(toolkit, tools, 'dashboard-update', { dashboardId: dashboard.id, data: { name: 'Growth 2026' } });
    assert.equal(updatedDashboard.name, 'Growth 2026');
    assert.deepEqual(
      (await call(toolkit, tools, 'dashboards-get-all')).map((item: { name: string }) => item.name),
      ['Growth 2026'],
    );

    await call(toolkit, tools, 'insight-delete', { insightId: String(created.id) });
    assert.deepEqual(await call(toolkit, tools, 'insights-get-all'), []);
    await call(toolkit, tools, 'dashboard-delete', { dashboardId: dashboard.id });
    assert.deepEqual(await call(toolkit, tools, 'dashboards-get-all'), []);
  });

  test('query-run answers a HogQL query and a trend through /query/', async () => {
    const rows = await call(toolkit, tools, 'query-run', {
      query: { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: 'select event, count() from events group by event order by event' } },
    });
    assert.deepEqual(rows, [
      ['$pageview', 2],
      ['signed up', 1],
    ]);
    const series = await call(toolkit, tools, 'query-run', {
      query: {
        kind: 'InsightVizNode',
        source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }], dateRange: { date_from: '-7d' } },
      },
    });
    assert.equal(series.length, 1);
    assert.equal(series[0].label, '$pageview');
    assert.equal(series[0].count, 2);
  });

  test('query-run answers a funnel through /query/', async () => {
    const steps = await call(toolkit, tools, 'query-run', {
      query: {
        kind: 'InsightVizNode',
        source: {
          kind: 'FunnelsQuery',
          series: [
            { kind: 'EventsNode', event: '$pageview', custom_name: 'Viewed' },
            { kind: 'EventsNode', event: 'signed up', custom_name: 'Signed up' },
          ],
          funnelsFilter: { funnelOrderType: 'ordered', funnelVizType: 'steps' },
          dateRange: { date_from: '-7d' },
        },
      },
    });
    assert.deepEqual(
      steps.map((step: { name: string; custom_name: string; order: number; count: number }) => [step.name, step.custom_name, step.order, step.count]),
      [
        ['$pageview', 'Viewed', 0, 2],
        ['signed up', 'Signed up', 1, 1],
      ],
    );
  });
});
