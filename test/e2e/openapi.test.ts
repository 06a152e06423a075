import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { TallyServer } from '../support/tally.js';

interface Schema {
  type?: string;
  properties?: Record<string, unknown>;
}

interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const WITH_BODY = new Set(['post', 'put', 'patch']);

async function validate(document: OpenApiDocument) {
  return new Validator().validate(structuredClone(document) as unknown as Record<string, unknown>);
}

function operations(document: OpenApiDocument): { name: string; method: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, method, operation })),
  );
}

/** The document at /api/schema/: valid OpenAPI 3, every operation stating its answer and every write its body. */
describe('the OpenAPI document', () => {
  let server: TallyServer;
  let document: OpenApiDocument;

  before(async () => {
    server = await TallyServer.start();
    const response = await server.get<OpenApiDocument>('/api/schema/', { key: null });
    assert.equal(response.status, 200);
    document = response.body;
  });
  after(() => server.dispose());

  test('is a valid OpenAPI 3 document', async () => {
    assert.match(document.openapi, /^3\./);
    assert.ok(operations(document).length > 0);
    const result = await validate(document);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  });

  test('every operation declares its 2xx answer: a body, or none for a 204', () => {
    const missing: string[] = [];
    for (const { name, operation } of operations(document)) {
      const successes = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('2'));
      const withBody = successes.filter(([status]) => status !== '204');
      const described = withBody.every(([, response]) => Object.values(response.content ?? {}).some((media) => media.schema !== undefined));
      if (successes.length === 0 || !described) missing.push(name);
      const noContent = successes.find(([status]) => status === '204');
      if (noContent) assert.equal(noContent[1].content, undefined, `${name}: a 204 has no body`);
    }
    assert.deepEqual(missing, [], 'operations without a described 2xx answer');
  });

  test('every POST, PUT and PATCH declares the fields of its JSON body', () => {
    const open: string[] = [];
    for (const { name, method, operation } of operations(document)) {
      if (!WITH_BODY.has(method)) continue;
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      const fields = schema?.type === 'object' ? Object.keys(schema.properties ?? {}) : [];
      if (fields.length === 0) open.push(name);
    }
    assert.deepEqual(open, [], 'writes whose JSON body names no field');
  });
});
