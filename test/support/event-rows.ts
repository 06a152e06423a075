import type { EventRow } from '../../src/capture/event-writer.js';

/** A complete `events` row for tests; each test overrides the columns it is about. */
export function eventRowFixture(overrides: Partial<EventRow> = {}): EventRow {
  return {
    uuid: '0190a3f2-0000-7000-8000-000000000001',
    team_id: 7,
    event: 'e',
    distinct_id: 'd',
    properties: '{"line":"one\\ntwo"}',
    timestamp: '2024-01-01 00:00:00.000000',
    created_at: '2024-01-01 00:00:00.000000',
    elements_chain: '',
    person_id: '00000000-0000-0000-0000-000000000000',
    person_properties: '{}',
    person_created_at: '1970-01-01 00:00:00.000000',
    person_mode: 'full',
    $group_0: '',
    $group_1: '',
    $group_2: '',
    $group_3: '',
    $group_4: '',
    $session_id: '',
    ...overrides,
  };
}
