import type { LoggedEvent } from './normalize-event.js';

/** A request's events as the capture log keeps them, and where each event's properties lie in it. */
export interface SerializedEvents {
  /** A JSON array of `LoggedEvent`. */
  json: string;
  /**
   * Per event, the start and end of its properties' JSON text in `json`: exactly
   * `JSON.stringify(event.properties)`, so the event row can take it from there instead of
   * serialising the properties again after they are parsed back.
   */
  propertiesSpans: Uint32Array<ArrayBuffer>;
}

/** Serialises events for the capture log, each event's properties last so their place is known. */
export function serializeLoggedEvents(events: readonly LoggedEvent[]): SerializedEvents {
  const spans = new Uint32Array(events.length * 2);
  let json = '[';
  for (const [index, event] of events.entries()) {
    if (index > 0) json += ',';
    json +=
      `{"uuid":${JSON.stringify(event.uuid)},"event":${JSON.stringify(event.event)},` +
      `"distinctId":${JSON.stringify(event.distinctId)},"time":${JSON.stringify(event.time)},` +
      `"elementsChain":${JSON.stringify(event.elementsChain)},"processPerson":${event.processPerson},` +
      (event.warnings ? `"warnings":${JSON.stringify(event.warnings)},` : '') +
      '"properties":';
    const properties = JSON.stringify(event.properties);
    spans[index * 2] = json.length;
    json += properties;
    spans[index * 2 + 1] = json.length;
    json += '}';
  }
  return { json: `${json}]`, propertiesSpans: spans };
}

/**
 * The properties text of event `index` after keys it did not have were added to its parsed
 * properties (`added`, in the order they were added), as pieces to be written one after another.
 * Keys added to a JS object serialise after its existing ones, so the pieces make the text
 * `JSON.stringify` would give the changed object. Pieces rather than their concatenation: V8
 * copies a concatenated string whole (flattens it) before it can measure or encode it, and the
 * slices of the logged text need no copy.
 */
export function loggedPropertiesPieces(
  { json, propertiesSpans }: { json: string; propertiesSpans: Uint32Array },
  index: number,
  added: readonly (readonly [string, unknown])[],
): string[] {
  const text = json.slice(propertiesSpans[index * 2], propertiesSpans[index * 2 + 1]);
  if (added.length === 0) return [text];
  const members = added.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',');
  return text === '{}' ? ['{', members, '}'] : [text.slice(0, -1), ',', members, '}'];
}
