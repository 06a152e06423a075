import type { Action } from './action.js';
import { serializeCreator } from './creator.js';

/** PostHog's ActionSerializer shape. */
export function serializeAction(action: Action) {
  return {
    id: action.id,
    name: action.name,
    description: action.description,
    tags: [],
    post_to_slack: false,
    slack_message_format: '',
    steps: action.steps,
    created_at: action.createdAt,
    created_by: serializeCreator(action.createdBy),
    deleted: action.deleted,
    is_calculating: false,
    last_calculated_at: action.updatedAt,
    team_id: action.teamId,
    is_action: true,
    bytecode_error: null,
    pinned_at: null,
  };
}
