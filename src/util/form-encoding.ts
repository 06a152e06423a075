/**
 * application/x-www-form-urlencoded, as `URLSearchParams` writes it (space as `+`, every byte
 * but ASCII letters, digits and `*-._` percent-encoded, lone surrogates as U+FFFD), from the
 * native `encodeURIComponent`: a trend's persons URLs encode a few hundred values per answer,
 * and building a `URLSearchParams` for each cost more than the rest of the URL.
 */
export function formEncode(text: string): string {
  return encodeURIComponent(text.toWellFormed())
    .replace(/%20/g, '+')
    .replace(/[!'()~]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** One `key=value` pair, objects (and arrays) written as JSON. */
export function formPair(key: string, value: unknown): string {
  return `${formEncode(key)}=${formEncode(typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value))}`;
}
