/** How an action step compares a url, text or href. */
export const STRING_MATCHINGS = ['contains', 'regex', 'exact'] as const;
export type StringMatching = (typeof STRING_MATCHINGS)[number];

/** One way an event can match an action, in PostHog's step JSON (null = no condition). */
export interface ActionStep {
  event: string | null;
  /** Event property filters, as sent (a list or a group). */
  properties: unknown;
  url: string | null;
  url_matching: StringMatching | null;
  selector: string | null;
  tag_name: string | null;
  text: string | null;
  text_matching: StringMatching | null;
  href: string | null;
  href_matching: StringMatching | null;
}

export interface Creator {
  id: number;
  uuid: string;
  email: string;
  firstName: string;
}

export interface Action {
  id: number;
  teamId: number;
  name: string | null;
  description: string;
  steps: ActionStep[];
  deleted: boolean;
  createdBy: Creator | null;
  createdAt: string;
  updatedAt: string;
}
