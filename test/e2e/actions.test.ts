import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendBatch } from '../support/capture.js';
import { ACTIONS } from '../support/cohorts.js';
import { startWithKeys, validationError } from '../support/persons.js';
import type { TallyServer } from '../support/tally.js';

/** Actions over HTTP: CRUD, and each step kind matched through the trend endpoint. */
describe('actions API', () => {
  let server: TallyServer;
  let keys: Record<string, string>;

  const createAction = async (body: Record<string, unknown>) => {
    const response = await server.post(`${ACTIONS}/`, body);
    assert.equal(response.status, 201, response.text);
    return response.body;
  };
  /** How many events of the last day match the action. */
  const matches = async (actionId: number): Promise<number> => {
    const response = await server.post('/api/projects/1/insights/trend/', {
      actions: [{ id: actionId, type: 'actions' }],
      date_from: '-1d',
      display: 'ActionsTable',
    });
    assert.equal(response.status, 200, response.text);
    return response.body.result[0].aggregated_value;
  };

  before(async () => {
    ({ server, keys } = await startWithKeys({ readOnly: 'action:read' }));
    const button = 'button.btn.primary:attr__class="btn primary"nth-child="1"nth-of-type="1"text="Sign up";form:nth-child="2"';
    const link = 'a:attr__href="/pricing"href="/pricing"nth-child="1"nth-of-type="1"text="Pricing";nav.top:attr__class="top"';
    await sendBatch(server, [
      { event: '$pageview', distinct_id: 'u1', properties: { $current_url: 'https://shop.example.com/checkout?step=1' } },
      { event: '$pageview', distinct_id: 'u1', properties: { $current_url: 'https://shop.example.com/cart' } },
      { event: '$pageview', distinct_id: 'u2', properties: { $current_url: 'https://shop.example.com/checkout' } },
      { event: '$autocapture', distinct_id: 'u1', properties: { $event_type: 'click', $elements_chain: button } },
      { event: '$autocapture', distinct_id: 'u2', properties: { $event_type: 'click', $elements_chain: link } },
      { event: 'purchase', distinct_id: 'u1', properties: { amount: 30 } },
      { event: 'purchase', distinct_id: 'u2', properties: { amount: 5 } },
    ]);
  });
  after(() => server.dispose());

  test('create, retrieve, list, PATCH and DELETE', async () => {
    const created = await createAction({ name: 'Bought', description: 'any purchase', steps: [{ event: 'purchase' }] });
    assert.equal(created.name, 'Bought');
    assert.equal(created.description, 'any purchase');
    assert.equal(created.deleted, false);
    assert.equal(created.is_action, true);
    assert.deepEqual(created.steps, [
      {
        event: 'purchase',
        properties: [],
        url: null,
        url_matching: null,
        selector: null,
        tag_name: null,
        text: null,
        text_matching: null,
        href: null,
        href_matching: null,
      },
    ]);
    assert.equal((await server.get(`${ACTIONS}/${created.id}/`)).body.name, 'Bought');
    const patched = await server.patch(`${ACTIONS}/${created.id}/`, { name: 'Purchased' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.name, 'Purchased');
    assert.equal(patched.body.steps[0].event, 'purchase');
    const listed = await server.get(`${ACTIONS}/`);
    assert.ok(listed.body.results.some((action: any) => action.id === created.id));

    assert.equal((await server.delete(`${ACTIONS}/${created.id}/`)).status, 204);
    assert.equal((await server.get(`${ACTIONS}/${created.id}/`)).status, 404);
    assert.ok(!(await server.get(`${ACTIONS}/`)).body.results.some((action: any) => action.id === created.id));
    const softDeleted = await createAction({ name: 'Soft', steps: [{ event: 'purchase' }] });
    assert.ok(softDeleted.id > created.id);
    assert.equal((await server.patch(`${ACTIONS}/${softDeleted.id}/`, { deleted: true })).status, 200);
    assert.equal((await server.get(`${ACTIONS}/${softDeleted.id}/`)).status, 404);
    // A deleted action in a trend series answers an empty result, as PostHog does.
    const trend = await server.post('/api/projects/1/insights/trend/', { actions: [{ id: softDeleted.id }], date_from: '-1d' });
    assert.deepEqual(trend.body.result, []);
  });

  test('event name and event property steps; steps are OR-ed', async () => {
    assert.equal(await matches((await createAction({ name: 'Purchase', steps: [{ event: 'purchase' }] })).id), 2);
    const big = await createAction({
      name: 'Big purchase',
      steps: [{ event: 'purchase', properties: [{ key: 'amount', value: 10, operator: 'gt', type: 'event' }] }],
    });
    assert.equal(await matches(big.id), 1);
    const either = await createAction({ name: 'Either', steps: [{ event: 'purchase' }, { event: '$autocapture' }] });
    assert.equal(await matches(either.id), 4);
  });

  test('url with contains, exact and regex matching', async () => {
    const contains = await createAction({ name: 'Checkout', steps: [{ event: '$pageview', url: '/checkout' }] });
    assert.equal(contains.steps[0].url_matching, 'contains');
    assert.equal(await matches(contains.id), 2);
    const exact = await createAction({
      name: 'Checkout exact',
      steps: [{ event: '$pageview', url: 'https://shop.example.com/checkout', url_matching: 'exact' }],
    });
    assert.equal(await matches(exact.id), 1);
    const regex = await createAction({ name: 'Checkout step', steps: [{ event: '$pageview', url: 'checkout\\?step=\\d+$', url_matching: 'regex' }] });
    assert.equal(await matches(regex.id), 1);
  });

  test('selector, tag_name, text and href on autocapture elements', async () => {
    const selector = await createAction({ name: 'Primary button', steps: [{ event: '$autocapture', selector: 'form > button.primary' }] });
    assert.equal(await matches(selector.id), 1);
    const tag = await createAction({ name: 'Link', steps: [{ event: '$autocapture', tag_name: 'a' }] });
    assert.equal(await matches(tag.id), 1);
    const text = await createAction({ name: 'Sign up text', steps: [{ event: '$autocapture', text: 'Sign up', text_matching: 'exact' }] });
    assert.equal(await matches(text.id), 1);
    const textContains = await createAction({ name: 'Text contains', steps: [{ event: '$autocapture', text: 'pric', text_matching: 'contains' }] });
    assert.equal(await matches(textContains.id), 1);
    const href = await createAction({ name: 'Pricing link', steps: [{ event: '$autocapture', href: '/pricing' }] });
    assert.equal(await matches(href.id), 1);
    const hrefRegex = await createAction({ name: 'Any path link', steps: [{ event: '$autocapture', href: '/pri[a-z]+', href_matching: 'regex' }] });
    assert.equal(await matches(hrefRegex.id), 1);
  });

  test('an action in a trend series is named after the action', async () => {
    const action = await createAction({ name: 'Named action', steps: [{ event: 'purchase' }] });
    const response = await server.post('/api/projects/1/insights/trend/', { actions: [{ id: action.id }], date_from: '-1d', display: 'ActionsTable' });
    assert.equal(response.body.result[0].label, 'Named action');
  });

  test('invalid bodies are 400s naming the field; scopes are enforced', async () => {
    const badMatching = await server.post(`${ACTIONS}/`, { name: 'x', steps: [{ url: 'a', url_matching: 'startswith' }] });
    assert.equal(badMatching.status, 400);
    assert.deepEqual(badMatching.body, validationError('"startswith" is not a valid choice.', 'steps__0__url_matching', 'invalid_choice'));
    const badSteps = await server.post(`${ACTIONS}/`, { name: 'x', steps: 'purchase' });
    assert.deepEqual(badSteps.body, validationError('Expected a list of items.', 'steps', 'not_a_list'));
    assert.equal((await server.get(`${ACTIONS}/`, { key: keys.readOnly })).status, 200);
    const write = await server.post(`${ACTIONS}/`, { name: 'x' }, { key: keys.readOnly });
    assert.equal(write.status, 403);
    assert.equal(write.body.detail, "API key missing required scope 'action:write'");
    assert.equal((await server.get(`${ACTIONS}/abc/`)).status, 404);
  });
});
