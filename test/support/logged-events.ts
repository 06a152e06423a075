import type { LoggedEvent } from '../../src/capture/normalize-event.js';

/** What a test says of a logged event; the rest takes the usual values. */
export interface LoggedEventFields {
  event: string;
  distinctId: string;
  time: number;
  properties?: Record<string, unknown>;
  processPerson?: boolean;
}

/** An event as capture logs it, its uuid the `sequence`-th of the tests' series. */
export function loggedEvent(sequence: number, { event, distinctId, time, properties = {}, processPerson = true }: LoggedEventFields): LoggedEvent {
  return {
    uuid: `0190a3f2-0000-7000-8000-${String(sequence).padStart(12, '0')}`,
    event,
    distinctId,
    properties,
    time,
    elementsChain: '',
    processPerson,
  };
}

/** Events as a capture log entry holds them. */
export function loggedEntryEvents(events: LoggedEvent[]): Uint8Array {
  return Buffer.from(JSON.stringify(events));
}
