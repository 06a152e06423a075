import { Type } from 'typebox';
import { Nullable, UserBasic } from './common-schemas.js';
import { pageEnvelope, pageQueryFields } from './pagination-schemas.js';

export const ActionListParams = Type.Object({ project_id: Type.String() });
export const ActionParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: "The action's integer id" }) });

export const ActionListQuery = Type.Object(pageQueryFields(100, 1000));

const Matching = (field: string) =>
  Nullable(Type.String({ description: `How ${field} is compared: contains, regex or exact; null when there is no ${field}` }));

/** One way an event matches the action; null fields are no condition. */
const ActionStep = Type.Object(
  {
    event: Nullable(Type.String({ description: 'The event name' })),
    properties: Type.Unknown({ description: 'Event property filters, as sent: a list or a property group' }),
    url: Nullable(Type.String({ description: '$current_url' })),
    url_matching: Matching('url'),
    selector: Nullable(Type.String({ description: 'A CSS selector the autocaptured element matches' })),
    tag_name: Nullable(Type.String()),
    text: Nullable(Type.String({ description: "The element's text" })),
    text_matching: Matching('text'),
    href: Nullable(Type.String({ description: "The element's link" })),
    href_matching: Matching('href'),
  },
  { additionalProperties: true },
);

/** PostHog's ActionSerializer shape. */
export const ActionRecord = Type.Object(
  {
    id: Type.Integer(),
    name: Nullable(Type.String()),
    description: Type.String(),
    tags: Type.Array(Type.String()),
    post_to_slack: Type.Boolean(),
    slack_message_format: Type.String(),
    steps: Type.Array(ActionStep, { description: 'An event matches the action when it matches any step' }),
    created_at: Type.String({ format: 'date-time' }),
    created_by: UserBasic,
    deleted: Type.Boolean(),
    is_calculating: Type.Boolean(),
    last_calculated_at: Type.String({ format: 'date-time' }),
    team_id: Type.Integer(),
    is_action: Type.Boolean(),
    bytecode_error: Nullable(Type.String()),
    pinned_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: true },
);

export const ActionList = pageEnvelope(ActionRecord);

/**
 * A create or PATCH body. Values are judged by the action parser, which answers PostHog's
 * messages at the field's path (`steps__0__url_matching`), so the schema names the fields without
 * constraining their values.
 */
export const ActionBody = Type.Object(
  {
    name: Type.Optional(Type.Unknown({ description: 'string (at most 400 characters) or null' })),
    description: Type.Optional(Type.Unknown({ description: 'string' })),
    steps: Type.Optional(
      Type.Unknown({
        description:
          'list of steps, each an object with event, properties (event property filters), url, url_matching (contains, the default with a url; regex; exact), ' +
          'selector, tag_name, text, text_matching, href, href_matching; absent fields are no condition. A PATCH with steps replaces them all',
      }),
    ),
    deleted: Type.Optional(Type.Unknown({ description: 'boolean: true deletes the action, as DELETE does' })),
  },
  { additionalProperties: true },
);
