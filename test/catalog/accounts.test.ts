import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { KeyRepository } from '../../src/keys/key-repository.js';
import { KeyService, secureValueOf } from '../../src/keys/key-service.js';
import { ProjectRepository } from '../../src/projects/project-repository.js';
import { ProjectService } from '../../src/projects/project-service.js';
import { openCatalog, type Catalog } from '../../src/storage/catalog/catalog.js';
import { CATALOG_BACKENDS } from '../support/catalogs.js';

for (const backend of CATALOG_BACKENDS) {
  describe(`catalog repositories on ${backend.name}`, { skip: backend.skip ?? false }, () => {
    let catalog: Catalog;
    let dispose: () => Promise<void>;
    let databaseUrl: string | null;

    before(async () => {
      ({ catalog, dispose, databaseUrl } = await backend.open());
    });
    after(() => dispose());

    test('organizations, users, projects and keys round-trip', async () => {
      const accounts = new AccountRepository(catalog.db);
      const projects = new ProjectService(new ProjectRepository(catalog.db));
      const keyRepository = new KeyRepository(catalog.db);
      const keys = new KeyService(keyRepository);

      const organization = await accounts.createOrganization('Acme');
      const user = await accounts.createUser({ email: 'ada@acme.io', firstName: 'Ada', organizationId: organization.id });
      assert.equal((await accounts.findUserByEmail('ada@acme.io'))?.id, user.id);

      const first = await projects.create({ organizationId: organization.id, name: 'Web', creatorEmail: user.email });
      const second = await projects.create({
        organizationId: organization.id,
        name: 'App',
        timezone: 'Europe/Paris',
        apiToken: 'phc_given',
        creatorEmail: user.email,
      });
      assert.equal(second.id, first.id + 1);
      assert.equal(second.apiToken, 'phc_given');
      assert.equal(second.timezone, 'Europe/Paris');
      assert.deepEqual(first.testAccountFilters[0], {
        key: 'email',
        value: '@acme.io',
        operator: 'not_icontains',
        type: 'person',
      });

      const repository = new ProjectRepository(catalog.db);
      assert.equal((await repository.findByToken('phc_given'))?.id, second.id);
      const page = await repository.listForOrganization(organization.id, { limit: 1, offset: 1 });
      assert.equal(page.total, 2);
      assert.deepEqual(
        page.projects.map((project) => project.name),
        ['App'],
      );

      const updated = await projects.update(second, { week_start_day: 1, person_display_name_properties: ['email'] });
      assert.equal(updated.weekStartDay, 1);
      assert.deepEqual(updated.personDisplayNameProperties, ['email']);

      const { key } = await keys.create({ userId: user.id, label: 'ci', scopes: ['person:read'], scopedTeams: [second.id] });
      const stored = await keys.authenticate(key);
      assert.ok(stored);
      assert.deepEqual(stored.scopes, ['person:read']);
      assert.deepEqual(stored.scopedTeams, [second.id]);
      assert.equal(stored.maskValue, `${key.slice(0, 4)}...${key.slice(-4)}`);
      assert.ok(stored.lastUsedAt === null || typeof stored.lastUsedAt === 'string');
      assert.ok((await keyRepository.findBySecureValue(secureValueOf(key)))?.lastUsedAt, 'last use is recorded');
      assert.equal(await keys.authenticate(`${key}x`), undefined);

      const raw = await catalog.db.selectFrom('personal_api_keys').select('secure_value').execute();
      assert.ok(raw.every((row) => row.secure_value.startsWith('sha256$') && !row.secure_value.includes(key)));
    });

    test('migrations are idempotent across reopen', async () => {
      if (databaseUrl) {
        const again = await openCatalog({ databaseUrl, dataDir: '/nonexistent' });
        assert.ok((await again.db.selectFrom('projects').selectAll().execute()).length >= 2);
        await again.close();
      }
      const count = await catalog.db.selectFrom('organizations').selectAll().execute();
      assert.equal(count.length, 1);
    });
  });
}
