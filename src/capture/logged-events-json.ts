import { parsesStorable } from '../util/well-formed-json.js';
import type { LoggedEvent } from './normalize-event.js';

/** A request's events as the capture log keeps them, and where each event's properties lie in it. */
export interface SerializedEvents {
  /** A JSON array of `LoggedEvent`. */
  json: string;
  /**
   * Per event, the start and end of its properties' JSON text in the UTF-8 bytes of `json`:
   * exactly `JSON.stringify(event.properties)`, so the event row can copy those bytes instead of
   * serialising and encoding the properties again after they are parsed back. Absent when `json`
   * holds a lone surrogate or a U+0000 (`parsesStorable`): parsed back, those are replaced, and
   * the bytes would no longer be the parsed properties'. Capture replaces both before events are
   * serialised, so the spans also tell the consumer that `json` needs no such replacing.
   */
  propertiesSpans?: Uint32Array<ArrayBuffer>;
}

/** Serialises events for the capture log, each event's properties last so their place is known. */
export function serializeLoggedEvents(events: readonly LoggedEvent[]): SerializedEvents {
  const spans = new Uint32Array(events.length * 2);
  let json = '[';
  let bytes = 1;
  for (const [index, event] of events.entries()) {
    const head =
      (index > 0 ? ',' : '') +
      `{"uuid":${JSON.stringify(event.uuid)},"event":${JSON.stringify(event.event)},` +
      `"distinctId":${JSON.stringify(event.distinctId)},"time":${JSON.stringify(event.time)},` +
      `"elementsChain":${JSON.stringify(event.elementsChain)},"processPerson":${event.processPerson},` +
      (event.warnings ? `"warnings":${JSON.stringify(event.warnings)},` : '') +
      '"properties":';
    const properties = JSON.stringify(event.properties);
    bytes += Buffer.byteLength(head, 'utf8');
    spans[index * 2] = bytes;
    bytes += Buffer.byteLength(properties, 'utf8');
    spans[index * 2 + 1] = bytes;
    json += `${head}${properties}}`;
    bytes += 1;
  }
  json += ']';
  return { json, propertiesSpans: parsesStorable(json) ? spans : undefined };
}

/**
 * The properties of event `index` after keys it did not have were added to its parsed
 * properties (`added`, in the order they were added), as pieces to be written one after another:
 * views of the logged bytes and text. Keys added to a JS object serialise after its existing
 * ones, so the pieces make the text `JSON.stringify` would give the changed object. Pieces rather
 * than a string: the logged bytes are copied as they are, with no decoding and encoding again.
 */
export function loggedPropertiesPieces(
  { bytes, propertiesSpans }: { bytes: Uint8Array; propertiesSpans: Uint32Array },
  index: number,
  added: readonly (readonly [string, unknown])[],
): (string | Uint8Array)[] {
  const start = propertiesSpans[index * 2]!;
  const end = propertiesSpans[index * 2 + 1]!;
  if (added.length === 0) return [bytes.subarray(start, end)];
  const members = added.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',');
  // `{}` is the only properties text of two bytes.
  return end - start === 2 ? ['{', members, '}'] : [bytes.subarray(start, end - 1), ',', members, '}'];
}
