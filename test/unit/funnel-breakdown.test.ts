import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { stepBreakdownKey } from '../../src/insights/funnels/funnel-actors.js';
import { parseFunnelBreakdown } from '../../src/insights/funnels/funnel-breakdown.js';

describe('funnel breakdowns', () => {
  test('property breakdowns are lists of properties; a single one is boxed', () => {
    assert.deepEqual(parseFunnelBreakdown({ breakdown: '$browser' }), { type: 'event', properties: ['$browser'], limit: 25 });
    assert.deepEqual(parseFunnelBreakdown({ breakdown: '["$browser", "$browser_version"]', breakdown_type: 'person', breakdown_limit: '3' }), {
      type: 'person',
      properties: ['$browser', '$browser_version'],
      limit: 3,
    });
    assert.deepEqual(parseFunnelBreakdown({ breakdowns: [{ property: '$os', type: 'person' }] }), { type: 'person', properties: ['$os'], limit: 25 });
    assert.deepEqual(parseFunnelBreakdown({ breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 1 }), {
      type: 'group',
      properties: ['industry'],
      groupTypeIndex: 1,
      limit: 25,
    });
    assert.equal(parseFunnelBreakdown({}), null);
    assert.equal(parseFunnelBreakdown({ breakdown: [] }), null);
  });

  test('cohort breakdowns take ids, "all" being 0', () => {
    assert.deepEqual(parseFunnelBreakdown({ breakdown: '["all", 7]', breakdown_type: 'cohort' }), { type: 'cohort', cohorts: [0, 7] });
    assert.deepEqual(parseFunnelBreakdown({ breakdown: 7, breakdown_type: 'cohort' }), { type: 'cohort', cohorts: [7] });
  });

  test('bad breakdowns name their field', () => {
    const attrOf = (input: Record<string, unknown>) => {
      try {
        parseFunnelBreakdown(input);
      } catch (error) {
        assert.ok(error instanceof ValidationError);
        return error.attr;
      }
      return null;
    };
    assert.equal(attrOf({ breakdown: 'x', breakdown_type: 'cohort' }), 'breakdown');
    assert.equal(attrOf({ breakdown: 'x', breakdown_type: 'hogql' }), 'breakdown_type');
    assert.equal(attrOf({ breakdown: 'x', breakdown_type: 'group' }), 'breakdown_group_type_index');
    assert.equal(attrOf({ breakdown: ['a', 'b'], breakdown_type: 'group', breakdown_group_type_index: 0 }), 'breakdown');
    assert.equal(attrOf({ breakdown: 'x', breakdown_limit: 0 }), 'breakdown_limit');
    assert.equal(attrOf({ breakdowns: '{}' }), 'breakdowns');
  });

  test('funnel_step_breakdown becomes the bucket key of the breakdown', () => {
    const event = parseFunnelBreakdown({ breakdown: '$browser' });
    assert.deepEqual(stepBreakdownKey('["Chrome"]', event), ['Chrome']);
    assert.deepEqual(stepBreakdownKey('Chrome', event), ['Chrome']);
    assert.deepEqual(stepBreakdownKey(['Safari', '15'], event), ['Safari', '15']);
    assert.deepEqual(stepBreakdownKey('[""]', event), ['']);
    assert.deepEqual(stepBreakdownKey('all', parseFunnelBreakdown({ breakdown: 'all', breakdown_type: 'cohort' })), ['0']);
    assert.deepEqual(stepBreakdownKey(12, parseFunnelBreakdown({ breakdown: 12, breakdown_type: 'cohort' })), ['12']);
    assert.equal(stepBreakdownKey(undefined, event), null);
    assert.equal(stepBreakdownKey('Chrome', null), null);
    assert.throws(() => stepBreakdownKey('x', parseFunnelBreakdown({ breakdown: 1, breakdown_type: 'cohort' })), ValidationError);
  });
});
