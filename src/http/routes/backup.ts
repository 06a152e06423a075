import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { BackupError } from '../../backup/backup-format.js';
import { BackupInProgressError, type StoreBackup } from '../../backup/store-backup.js';
import { ApiError, AuthenticationFailed, NotAuthenticated, ValidationError } from '../../errors.js';

/** The header carrying the token of the server file (see `src/storage/server-file.ts`). */
export const SERVER_TOKEN_HEADER = 'x-tally-server-token';

const Body = Type.Object({
  path: Type.String({
    minLength: 1,
    description: "Absolute path, on the server's machine, of a new or empty directory outside the data directory",
  }),
});

const Response = Type.Object({
  path: Type.String(),
  format: Type.String({ description: 'tally-backup' }),
  version: Type.Integer(),
  created_at: Type.String({ format: 'date-time', description: 'When ingestion was paused for the copy' }),
  catalog: Type.Object({ file: Type.String(), bytes: Type.Integer(), persons: Type.Integer() }),
  warehouse: Type.Object({ directory: Type.String(), events: Type.Integer() }),
  capture_log: Type.Object({
    directory: Type.String(),
    entries: Type.Integer({ description: 'Capture requests acknowledged and not processed yet: the restored server processes them' }),
    events: Type.Integer(),
  }),
});

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `POST /api/backup/`: writes a backup of the embedded stores to a directory on the server's
 * machine while the server goes on serving; what `tally backup` calls when a server holds the
 * data directory. It is authorised by the token of the server file in the data directory, not by
 * a personal API key: a backup holds every organization's data and is written where the caller
 * says, which is the authority of whoever can read the data directory, not of an API user.
 */
export async function backupRoutes(app: FastifyInstance, backup: StoreBackup | null, serverToken: string | null): Promise<void> {
  app.post(
    '/api/backup/',
    {
      schema: {
        description:
          'Writes a consistent backup of the embedded catalog, warehouse and capture log into a new or empty directory on the server, ' +
          `while the server keeps serving. Authorised by the \`${SERVER_TOKEN_HEADER}\` header: the token in the data directory's tally.server.json. ` +
          'Used by `tally backup`.',
        security: [{ ServerToken: [] }],
        body: Body,
        response: { 200: Response },
      },
      preValidation: async (request: FastifyRequest) => {
        const given = request.headers[SERVER_TOKEN_HEADER];
        if (typeof given !== 'string' || given === '') throw new NotAuthenticated();
        if (serverToken === null || !sameToken(given, serverToken)) throw new AuthenticationFailed('The server token is invalid.');
      },
    },
    async (request) => {
      if (backup === null) {
        throw new ApiError(
          400,
          'invalid_request',
          'backup_unsupported',
          'Tally backs up its embedded stores only; with PostgreSQL or ClickHouse, back them up with their own tools (pg_dump, ClickHouse BACKUP).',
        );
      }
      const { path } = request.body as { path: string };
      try {
        return { path, ...(await backup.write(path)) };
      } catch (error) {
        if (error instanceof BackupError) throw new ValidationError(error.attr, error.message);
        if (error instanceof BackupInProgressError) throw new ApiError(409, 'invalid_request', 'conflict', error.message);
        throw error;
      }
    },
  );
}
