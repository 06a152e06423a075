import zlib from 'node:zlib';
import LZString from 'lz-string';
import { nestsDeeperThan } from '../util/json-depth.js';
import { parseWellFormedJson } from '../util/well-formed-json.js';
import { CapturePayloadTooLarge, InvalidPayload } from './capture-errors.js';

export interface RawCaptureRequest {
  body: Buffer;
  query: Record<string, unknown>;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** Largest decoded payload accepted, in bytes. */
  limitBytes: number;
}

type Compression = 'gzip' | 'lz64' | 'base64' | 'none';

/** Nesting levels of arrays and objects a payload may have, as serde_json's default limit. */
const MAX_JSON_DEPTH = 128;

const FORM_PREFIXES = ['data=', '_=', 'ip=', 'compression=', 'ver=', 'api_key=', 'token='];
const BASE64_CHARS = /^[A-Za-z0-9+/=\s]*$/;

function compressionOf(hint: unknown): Compression | null {
  if (typeof hint !== 'string' || hint === '') return null;
  switch (hint.trim().toLowerCase()) {
    case 'gzip':
    case 'gzip-js':
      return 'gzip';
    case 'lz64':
    case 'lz-string':
      return 'lz64';
    case 'base64':
    case 'b64':
      return 'base64';
    default:
      return 'none';
  }
}

function isGzip(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Strict base64 as PostHog sniffs it: base64 characters only and a length that is a multiple of 4. */
function looksLikeBase64(text: string): boolean {
  const compact = text.replace(/\s/g, '');
  return compact.length > 0 && compact.length % 4 === 0 && BASE64_CHARS.test(text.slice(0, 128)) && BASE64_CHARS.test(text);
}

function decodeBase64(text: string): Buffer {
  return Buffer.from(text.replace(/\s/g, ''), 'base64');
}

function gunzip(bytes: Buffer, limitBytes: number): Buffer {
  try {
    return zlib.gunzipSync(bytes, { maxOutputLength: limitBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new CapturePayloadTooLarge(limitBytes);
    throw new InvalidPayload(`could not decompress the gzip body (${(error as Error).message})`);
  }
}

function lzDecompress(text: string): string {
  let decompressed: string | null = null;
  try {
    decompressed = LZString.decompressFromBase64(text.trim());
  } catch {
    // lz-string throws on some truncated inputs instead of returning null.
  }
  if (!decompressed) throw new InvalidPayload('could not decompress the lz-string body');
  return decompressed;
}

function isForm(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

export interface DecodedPayload {
  json: unknown;
  /** A token sent as a form field (legacy clients), used when the events carry none. */
  formToken: string | null;
}

/**
 * Turns whatever an SDK sent into the JSON of its events: GET `data=`, form bodies,
 * base64, gzip (by hint or by magic bytes, since posthog-js sends gzip as text/plain with no
 * hint) and lz-string. Throws InvalidPayload for anything undecodable.
 */
export function decodeCapturePayload(request: RawCaptureRequest): DecodedPayload {
  const queryData = typeof request.query.data === 'string' ? request.query.data : '';
  let payload: Buffer = queryData !== '' ? Buffer.from(queryData) : request.body;
  if (payload.length === 0) throw new InvalidPayload('request missing data payload');

  let formCompression: unknown;
  let formToken: string | null = null;
  const payloadText = payload.toString('latin1', 0, Math.min(payload.length, 64));
  if (queryData === '' && (isForm(request.contentType) || FORM_PREFIXES.some((prefix) => payloadText.startsWith(prefix)))) {
    if (isGzip(payload)) throw new InvalidPayload('a form body cannot be gzip data');
    const form = new URLSearchParams(payload.toString('utf8'));
    const data = form.get('data');
    if (data === null || data === '') throw new InvalidPayload('form body has no data field');
    formCompression = form.get('compression') ?? undefined;
    formToken = form.get('api_key') || form.get('token') || null;
    // Form decoding turns the '+' of base64 into spaces; put them back.
    payload = Buffer.from(looksLikeBase64(data.replace(/ /g, '+')) ? data.replace(/ /g, '+') : data);
  }

  const compression = compressionOf(request.query.compression) ?? compressionOf(formCompression) ?? compressionOf(request.contentEncoding) ?? 'none';

  let text: string;
  if (compression === 'gzip' || isGzip(payload)) {
    const bytes = isGzip(payload) ? payload : decodeBase64(payload.toString('latin1'));
    text = gunzip(bytes, request.limitBytes).toString('utf8');
  } else if (compression === 'lz64') {
    text = lzDecompress(payload.toString('utf8'));
  } else if (compression === 'base64') {
    text = decodeBase64(payload.toString('latin1')).toString('utf8');
  } else {
    text = payload.toString('utf8');
  }

  // Legacy clients double-encode: base64 of JSON, or base64 of gzip.
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[') && looksLikeBase64(trimmed)) {
    const inner = decodeBase64(trimmed);
    text = isGzip(inner) ? gunzip(inner, request.limitBytes).toString('utf8') : inner.toString('utf8');
  }
  if (Buffer.byteLength(text) > request.limitBytes) throw new CapturePayloadTooLarge(request.limitBytes);

  let json: unknown;
  try {
    json = parseWellFormedJson(text);
  } catch (error) {
    throw new InvalidPayload(`malformed JSON (${(error as Error).message})`);
  }
  // PostHog's capture parses with serde_json, which refuses deeper JSON; deeper properties would
  // also fail the warehouse's parser far behind the acknowledgement, or overflow the stack.
  if (nestsDeeperThan(json, MAX_JSON_DEPTH)) throw new InvalidPayload(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  return { json, formToken };
}
