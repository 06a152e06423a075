import { EVENT_ROW_COLUMNS, type EventRow } from '../../src/capture/event-row-buffer.js';

/** A complete `events` row for tests; each test overrides the columns it is about. */
export function eventRowFixture(overrides: Partial<EventRow> = {}): EventRow {
  return {
    uuid: '0190a3f2-0000-7000-8000-000000000001',
    team_id: 7,
    event: 'e',
    distinct_id: 'd',
    properties: '{"line":"one\\ntwo"}',
    timestamp: Date.UTC(2024, 0, 1) * 1000,
    created_at: Date.UTC(2024, 0, 1) * 1000,
    elements_chain: '',
    person_id: '00000000-0000-0000-0000-000000000000',
    person_properties: '{}',
    person_created_at: 0,
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

/** The columns of RowBinary-encoded event rows, by name (times as tick counts), read back for assertions. */
export function decodeEventRows(bytes: Buffer): Record<string, string | number>[] {
  const rows: Record<string, string | number>[] = [];
  let at = 0;
  while (at < bytes.length) {
    const row: Record<string, string | number> = {};
    for (const { name, type } of EVENT_ROW_COLUMNS) {
      if (type === 'UUID') {
        const hex = Buffer.concat([bytes.subarray(at, at + 8).reverse(), bytes.subarray(at + 8, at + 16).reverse()]).toString('hex');
        row[name] = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
        at += 16;
      } else if (type === 'String') {
        let length = 0;
        for (let shift = 0; ; shift += 7) {
          const byte = bytes[at++]!;
          length += (byte & 0x7f) * 2 ** shift;
          if (byte < 0x80) break;
        }
        row[name] = bytes.toString('utf8', at, at + length);
        at += length;
      } else {
        row[name] = Number(bytes.readBigInt64LE(at));
        at += 8;
      }
    }
    rows.push(row);
  }
  return rows;
}
