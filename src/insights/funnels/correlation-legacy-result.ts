import type { RawInput } from '../filter-model.js';
import type { CorrelationResult, CorrelationRow, CorrelationSubject } from './correlation-runner.js';
import { personsUrl } from './funnel-legacy-result.js';

/** The correlation keys a correlation persons URL carries over, beside the funnel's. */
const CORRELATION_KEYS = ['funnel_correlation_type'];

function rowName(subject: CorrelationSubject): string {
  switch (subject.kind) {
    case 'event':
      return subject.event;
    case 'event_property':
      return `${subject.event}::${subject.property}::${subject.value}`;
    case 'property':
      return `${subject.property}::${subject.value}`;
  }
}

/** What the row's persons URL selects: the event (with its property value), or the property value. */
function selection(subject: CorrelationSubject, groupTypeIndex: number | null): Record<string, unknown> {
  switch (subject.kind) {
    case 'event':
      return { funnel_correlation_person_entity: { id: subject.event, type: 'events' } };
    case 'event_property':
      return {
        funnel_correlation_person_entity: {
          id: subject.event,
          type: 'events',
          properties: [{ key: subject.property, value: subject.value, type: 'event', operator: 'exact' }],
        },
      };
    case 'property':
      return {
        funnel_correlation_property_values: [
          groupTypeIndex === null
            ? { key: subject.property, value: subject.value, type: 'person', operator: 'exact' }
            : { key: subject.property, value: subject.value, type: 'group', operator: 'exact', group_type_index: groupTypeIndex },
        ],
      };
  }
}

function legacyRow(row: CorrelationRow, projectId: number, input: RawInput, groupTypeIndex: number | null): object {
  const path = `/api/projects/${projectId}/persons/funnel/correlation/`;
  const url = (converted: boolean) =>
    personsUrl(path, input, {
      ...Object.fromEntries(CORRELATION_KEYS.filter((key) => input[key] !== undefined).map((key) => [key, input[key]])),
      ...selection(row.subject, groupTypeIndex),
      funnel_correlation_person_converted: converted ? 'true' : 'false',
    });
  return {
    event: { event: rowName(row.subject), properties: {}, elements: [] },
    success_count: row.visited.success,
    failure_count: row.visited.failure,
    odds_ratio: row.oddsRatio,
    correlation_type: row.correlationType,
    success_people_url: url(true),
    failure_people_url: url(false),
  };
}

/** PostHog's legacy correlation result: `{events: [...], skewed}`. */
export function legacyCorrelationResult(projectId: number, input: RawInput, groupTypeIndex: number | null, result: CorrelationResult): object {
  return { events: result.rows.map((row) => legacyRow(row, projectId, input, groupTypeIndex)), skewed: result.skewed };
}
