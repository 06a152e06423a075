import { ValidationError } from '../errors.js';
import type { GroupCursor } from './group.js';

export function encodeGroupCursor(cursor: GroupCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.groupKey]), 'utf8').toString('base64url');
}

export function decodeGroupCursor(text: string): GroupCursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    decoded = null;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || !decoded.every((part) => typeof part === 'string')) {
    throw new ValidationError('cursor', 'Invalid cursor: use the next link of a previous page.', 'invalid');
  }
  const [createdAt, groupKey] = decoded as [string, string];
  return { createdAt, groupKey };
}
