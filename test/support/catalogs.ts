import fs from 'node:fs';
import pg from 'pg';
import { openCatalog, type Catalog } from '../../src/storage/catalog/catalog.js';
import { tempDataDir } from './tally.js';

/** A fresh, empty catalog of one backend, and how to throw it away. */
export interface CatalogBackend {
  name: 'sqlite' | 'postgres';
  /** Why the backend is skipped, or null when it runs. */
  skip: string | null;
  open(): Promise<{ catalog: Catalog; databaseUrl: string | null; dispose(): Promise<void> }>;
}

const postgresAdminUrl = process.env.TEST_DATABASE_URL ?? null;

/** Creates a throw-away PostgreSQL database on the server of `adminUrl` (TEST_DATABASE_URL's by default). */
export async function createPostgresDatabase(adminUrl = postgresAdminUrl): Promise<{ url: string; drop(): Promise<void> }> {
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `tally_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export const POSTGRES_SKIP_REASON = postgresAdminUrl ? null : 'PostgreSQL tests skipped: set TEST_DATABASE_URL (as .ci/run does) to run them';

export const CATALOG_BACKENDS: CatalogBackend[] = [
  {
    name: 'sqlite',
    skip: null,
    async open() {
      const dataDir = tempDataDir('tally-catalog-');
      const catalog = await openCatalog({ databaseUrl: null, dataDir });
      return {
        catalog,
        databaseUrl: null,
        async dispose() {
          await catalog.close();
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    skip: POSTGRES_SKIP_REASON,
    async open() {
      const database = await createPostgresDatabase();
      const catalog = await openCatalog({ databaseUrl: database.url, dataDir: tempDataDir('tally-unused-') });
      return {
        catalog,
        databaseUrl: database.url,
        async dispose() {
          await catalog.close();
          await database.drop();
        },
      };
    },
  },
];
