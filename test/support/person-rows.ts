/** The UUID of test person N on the persons replica. */
export function personRowUuid(personId: number): string {
  return `0190a3f2-0000-7000-8000-${String(personId).padStart(12, '0')}`;
}

/** A live `persons` replica row of team 1 for tests: person N, created 2024-01-01, with these properties. */
export function personRowFixture(personId: number, properties: Record<string, unknown>) {
  return {
    id: personRowUuid(personId),
    team_id: 1,
    person_id: personId,
    properties: JSON.stringify(properties),
    is_identified: 0,
    created_at: '2024-01-01 00:00:00.000000',
    version: personId,
    is_deleted: 0,
  };
}
