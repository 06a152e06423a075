import crypto from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { ValidationError } from '../errors.js';
import { newPersonalApiKey } from '../util/random.js';
import { nowIso } from '../util/time.js';
import type { KeyRepository, StoredKey } from './key-repository.js';
import { validateScopes } from './scopes.js';

const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/** PostHog's unsalted form, so a key hash can be looked up directly. */
export function secureValueOf(key: string): string {
  return `sha256$${crypto.createHash('sha256').update(key).digest('hex')}`;
}

export function maskOf(key: string): string {
  return `${key.slice(0, 4)}...${key.slice(-4)}`;
}

export function validateLabel(label: string): string {
  if (label.length > 40) throw new ValidationError('label', 'Ensure this field has no more than 40 characters.', 'max_length');
  return label;
}

export interface CreateKeyInput {
  userId: number;
  label: string;
  scopes: string[];
  scopedTeams: number[] | null;
  scopedOrganizations?: string[] | null;
  /** A caller-chosen key (TALLY_PERSONAL_API_KEY); a random phx_ key otherwise. */
  value?: string;
}

export class KeyService {
  constructor(private readonly keys: KeyRepository) {}

  async create(input: CreateKeyInput): Promise<{ key: string; id: string }> {
    const scopes = validateScopes(input.scopes);
    validateLabel(input.label);
    const key = input.value ?? newPersonalApiKey();
    if (key.length < 8) throw new ValidationError('value', 'A personal API key must have at least 8 characters.');
    const id = uuidv7();
    await this.keys.insert({
      id,
      userId: input.userId,
      label: input.label,
      secureValue: secureValueOf(key),
      maskValue: maskOf(key),
      scopes,
      scopedTeams: input.scopedTeams,
      scopedOrganizations: input.scopedOrganizations ?? null,
      createdAt: nowIso(),
    });
    return { key, id };
  }

  /**
   * The key's record when the value is a known key of an active user; last use is kept to the
   * hour, and the record carries it, so a key describing itself shows the use it is making.
   */
  async authenticate(value: string): Promise<StoredKey | undefined> {
    const stored = await this.keys.findBySecureValue(secureValueOf(value));
    if (!stored?.user.isActive) return undefined;
    const now = Date.now();
    if (!stored.lastUsedAt || now - Date.parse(stored.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
      const lastUsedAt = new Date(now).toISOString();
      await this.keys.touchLastUsed(stored.id, lastUsedAt);
      return { ...stored, lastUsedAt };
    }
    return stored;
  }
}
