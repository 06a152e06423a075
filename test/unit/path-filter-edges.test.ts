import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { parsePathFilter } from '../../src/insights/paths/path-filter.js';
import { reachableEdges, type PathEdge } from '../../src/insights/paths/path-runner.js';

function edge(source: string, target: string): PathEdge {
  return { source, target, value: 1, averageConversionTime: 0 };
}

describe('path filter', () => {
  test('defaults: every event type, 5 steps, 50 edges; no edge limit when both points are set', () => {
    const filter = parsePathFilter({});
    assert.deepEqual(filter.eventTypes, []);
    assert.equal(filter.stepLimit, 5);
    assert.equal(filter.edgeLimit, 50);
    assert.equal(parsePathFilter({ start_point: '/', end_point: '/about' }).edgeLimit, null);
    assert.equal(parsePathFilter({ start_point: '/', end_point: '/about', edge_limit: '7' }).edgeLimit, 7);
  });

  test('include_event_types as JSON or a plain value; custom events by name, but not with custom_event', () => {
    assert.deepEqual(parsePathFilter({ include_event_types: '["$pageview", "$screen"]' }).eventTypes, ['$pageview', '$screen']);
    assert.deepEqual(parsePathFilter({ include_event_types: '$screen' }).eventTypes, ['$screen']);
    assert.deepEqual(parsePathFilter({ include_custom_events: ['signed up'] }).customEvents, ['signed up']);
    assert.throws(() => parsePathFilter({ include_event_types: ['custom_event'], include_custom_events: ['signed up'] }), ValidationError);
  });

  test('edge weights are positive, the maximum at least the minimum', () => {
    const filter = parsePathFilter({ min_edge_weight: '2', max_edge_weight: 9 });
    assert.deepEqual([filter.minEdgeWeight, filter.maxEdgeWeight], [2, 9]);
    for (const input of [{ min_edge_weight: 0 }, { max_edge_weight: 'x' }, { min_edge_weight: 5, max_edge_weight: 4 }]) {
      assert.throws(() => parsePathFilter(input), ValidationError, JSON.stringify(input));
    }
  });
});

describe('reachable edges', () => {
  test('keeps the edges reachable from a first-position node, in their order', () => {
    const edges = [edge('1_/', '2_/a'), edge('3_/x', '4_/b'), edge('2_/a', '3_/y'), edge('3_/y', '4_/z'), edge('1_/q', '2_/r')];
    assert.deepEqual(reachableEdges(edges), [edge('1_/', '2_/a'), edge('2_/a', '3_/y'), edge('3_/y', '4_/z'), edge('1_/q', '2_/r')]);
    assert.deepEqual(reachableEdges([edge('2_/a', '3_/b')]), []);
  });
});
