/**
 * Errors in a HogQL text. Positions are character offsets into the text that failed, so the
 * metadata endpoint can point at them; the query endpoint turns them into 400s naming the field
 * that held the text.
 */
export class HogQLError extends Error {
  constructor(
    message: string,
    readonly start: number | null = null,
    readonly end: number | null = null,
  ) {
    super(message);
  }
}

/** The text is not HogQL: PostHog's `SyntaxError` (code `hogql_syntax_error`). */
export class HogQLSyntaxError extends HogQLError {}

/** The text parses but asks for something that does not exist or is not allowed: PostHog's `QueryError` (code `hogql_query_error`). */
export class HogQLQueryError extends HogQLError {}

/** A `{name}` placeholder without a value: the fault is in the request's `values`. */
export class HogQLPlaceholderError extends HogQLQueryError {}
