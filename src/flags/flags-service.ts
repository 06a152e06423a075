import { randomUUID } from 'node:crypto';
import { InvalidApiKey, MissingApiKey } from '../capture/capture-errors.js';
import { decodeCapturePayload, type RawCaptureRequest } from '../capture/payload-decoder.js';
import type { ProjectRepository } from '../projects/project-repository.js';

function tokenOf(body: unknown, query: Record<string, unknown>): string | null {
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  for (const candidate of [fields.token, fields.api_key, fields.$token, query.token, query.api_key]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim();
  }
  return null;
}

/**
 * The feature-flag endpoints the SDKs call on start-up (`/flags`, and `/decide` of older
 * versions). Tally has no feature flags, so every valid request is answered with none — in the
 * shape the asking version expects — and the SDKs go on capturing instead of logging errors.
 */
export class FlagsService {
  constructor(private readonly projects: ProjectRepository) {}

  async evaluate(request: RawCaptureRequest, shape: 'flags' | 'legacy'): Promise<Record<string, unknown>> {
    const body = request.body.length > 0 || typeof request.query.data === 'string' ? decodeCapturePayload(request).json : {};
    const token = tokenOf(body, request.query);
    if (token === null) throw new MissingApiKey();
    if (token.startsWith('phx_') || !(await this.projects.findByToken(token))) throw new InvalidApiKey();
    const common = { errorsWhileComputingFlags: false, supportedCompression: ['gzip', 'gzip-js'] };
    return shape === 'flags' ? { flags: {}, ...common, requestId: randomUUID() } : { featureFlags: {}, featureFlagPayloads: {}, ...common };
  }
}
