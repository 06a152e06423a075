import { Type, type Static, type TSchema } from 'typebox';

/**
 * `schema` or null, as OpenAPI 3.0's `nullable`: a union with null would let request validation
 * coerce a null it receives into the other type's empty value (`""`, `0`).
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
/** Any JSON object, every key kept. */
export const AnyObject = Type.Object({}, { additionalProperties: true });

/** PostHog's UserBasicSerializer: who created or changed a record, null when nobody known. */
export const UserBasic = Nullable(
  Type.Object({
    id: Type.Integer(),
    uuid: Type.String(),
    distinct_id: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.String(),
    is_email_verified: Nullable(Type.Boolean()),
  }),
);
