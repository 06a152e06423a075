import { ValidationError } from '../errors.js';
import { HogQLError, HogQLPlaceholderError, HogQLSyntaxError } from '../hogql/errors.js';

/**
 * A HogQL error as the API answers it: 400 `validation_error` with PostHog's codes
 * (`hogql_syntax_error`, `hogql_query_error`) and `attr` the dotted path of the field whose
 * text failed (a missing placeholder value is the fault of `values`).
 */
export function hogqlValidationError(error: unknown, attr: string, valuesAttr: string): unknown {
  if (!(error instanceof HogQLError)) return error;
  if (error instanceof HogQLPlaceholderError) return new ValidationError(valuesAttr, error.message, 'hogql_query_error');
  const code = error instanceof HogQLSyntaxError ? 'hogql_syntax_error' : 'hogql_query_error';
  return new ValidationError(attr, error.message, code);
}

/** Runs `work`, restating HogQL errors as the API's 400s. */
export async function withHogQLErrors<T>(attr: string, valuesAttr: string, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw hogqlValidationError(error, attr, valuesAttr);
  }
}
