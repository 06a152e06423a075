/** A group as the catalog holds it: created by the first `$groupidentify` that names it. */
export interface Group {
  groupTypeIndex: number;
  groupKey: string;
  properties: Record<string, unknown>;
  /** The timestamp of that first `$groupidentify`, ISO-8601 UTC with microseconds. */
  createdAt: string;
  /** Counts the changes ingestion stored, from 0 for the first. */
  version: number;
}

/** A project's name for a group type index (0–4), assigned the first time capture sees it. */
export interface GroupType {
  groupType: string;
  groupTypeIndex: number;
}

/** Where a page of the group list ended: its last group's creation time and key. */
export interface GroupCursor {
  createdAt: string;
  groupKey: string;
}

export interface GroupListFilter {
  groupTypeIndex: number;
  /** Case-insensitive substring of the key or of the `name` property. */
  search: string | null;
  /** Case-insensitive substring of the key. */
  groupKey: string | null;
  after: GroupCursor | null;
  limit: number;
}
