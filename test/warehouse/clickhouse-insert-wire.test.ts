import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ClickhouseWarehouse, STORED_KEYS_PER_REQUEST } from '../../src/storage/warehouse/clickhouse-warehouse.js';

interface Received {
  method: string;
  params: URLSearchParams;
  body: Buffer;
}

/**
 * What a ClickHouse server receives for an insert, read off the HTTP wire (no server runs in CI):
 * the lines must arrive as the request body exactly as given, not re-encoded by the client.
 */
test('inserts to a ClickHouse server send the JSONEachRow lines and RowBinary rows byte for byte', async () => {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      received.push({ method: request.method ?? '', params: url.searchParams, body: Buffer.concat(chunks) });
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const warehouse = new ClickhouseWarehouse(`http://127.0.0.1:${port}`, 'tally');
  try {
    const lines =
      '{"uuid":"0190a3f2-0000-7000-8000-000000000001","properties":{"text":"é \\"q\\""}}\n{"uuid":"0190a3f2-0000-7000-8000-000000000002","properties":{}}';
    await warehouse.insertJsonEachRow('events', Buffer.from(lines));
    await warehouse.insertJsonEachRow('persons', lines);
    await warehouse.insertJsonEachRow('events', '');
    await assert.rejects(warehouse.insertJsonEachRow('events; DROP TABLE events', lines), /not a warehouse identifier/);
    const rows = Buffer.from([0x00, 0xff, 0x0a, 0x80, 0x01]);
    await warehouse.insertRowBinary(
      'events',
      [
        { name: 'uuid', type: 'UUID' },
        { name: '$group_0', type: 'String' },
      ],
      [rows.subarray(0, 2), Buffer.alloc(0), rows.subarray(2)],
    );
    await warehouse.insertRowBinary('events', [{ name: 'uuid', type: 'UUID' }], [Buffer.alloc(0)]);
    await warehouse.insertRowBinary('events', [{ name: 'uuid', type: 'UUID' }], []);
    await assert.rejects(warehouse.insertRowBinary('events', [{ name: 'a` String', type: 'UUID' }], [rows]), /not a warehouse identifier/);

    assert.equal(received.length, 3, 'empty inserts and a bad name send nothing');
    for (const [index, table] of ['events', 'persons'].entries()) {
      const { method, params, body } = received[index]!;
      assert.equal(method, 'POST');
      assert.equal(params.get('query'), `INSERT INTO \`${table}\` FORMAT JSONEachRow`);
      assert.equal(params.get('database'), 'tally');
      assert.equal(params.get('input_format_json_read_objects_as_strings'), '1');
      assert.equal(body.toString('utf8'), lines);
    }
    const binary = received[2]!;
    assert.equal(binary.params.get('query'), 'INSERT INTO `events` (`uuid`, `$group_0`) FORMAT RowBinary');
    assert.equal(binary.params.get('database'), 'tally');
    assert.deepEqual(binary.body, rows);
  } finally {
    await warehouse.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('a ClickHouse server is asked for stored keys with each column’s values as an array parameter', async () => {
  const queries: { sql: string; params: URLSearchParams }[] = [];
  // ClickHouse takes URIs up to 1 MiB; Node's own limit is 16 KB.
  const server = http.createServer({ maxHeaderSize: 1 << 20 }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const sql = Buffer.concat(chunks).toString('utf8');
      queries.push({ sql, params: new URL(request.url ?? '/', 'http://localhost').searchParams });
      const answer = sql.includes('system.settings') ? '' : '{"key_0":"7","key_1":"0190a3f2-0000-7000-8000-000000000001"}\n';
      response.writeHead(200, { 'Content-Type': 'application/x-ndjson' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const warehouse = new ClickhouseWarehouse(`http://127.0.0.1:${port}`, 'tally');
  try {
    const columns = [
      { name: 'team_id', type: 'Int64' },
      { name: 'uuid', type: 'UUID' },
    ];
    const keys = [
      [7, '0190a3f2-0000-7000-8000-000000000001'],
      [7, '0190a3f2-0000-7000-8000-000000000002'],
    ];
    assert.deepEqual(await warehouse.storedKeys('event_uuids', columns, keys), [['7', '0190a3f2-0000-7000-8000-000000000001']]);
    assert.deepEqual(await warehouse.storedKeys('event_uuids', columns, []), [], 'no keys, no request');
    const asked = queries.filter(({ sql }) => !sql.includes('system.settings'));
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.sql, /FROM `event_uuids`\s+WHERE `team_id` IN \{values_0:Array\(Int64\)\} AND `uuid` IN \{values_1:Array\(UUID\)\}/);
    assert.equal(asked[0]!.params.get('param_values_0'), '[7]');
    assert.equal(asked[0]!.params.get('param_values_1'), "['0190a3f2-0000-7000-8000-000000000001','0190a3f2-0000-7000-8000-000000000002']");

    // Many keys go in groups, so no request's URL nears the server's 1 MiB limit.
    const many = Array.from({ length: STORED_KEYS_PER_REQUEST + 1 }, (_, index) => [7, `0190a3f2-0000-7000-8000-${String(index).padStart(12, '0')}`]);
    assert.equal((await warehouse.storedKeys('event_uuids', columns, many)).length, 2, 'one answer row per request, both kept');
    const grouped = queries.filter(({ sql }) => !sql.includes('system.settings')).slice(1);
    assert.deepEqual(
      grouped.map(({ params }) => (params.get('param_values_1')!.match(/'/g) ?? []).length / 2),
      [STORED_KEYS_PER_REQUEST, 1],
    );
    assert.ok(grouped.every(({ params }) => params.toString().length < 300_000));
  } finally {
    await warehouse.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('a node of a cluster sends every insert in the foreground, so the shards hold the rows when it returns, and runs subqueries over the events GLOBAL; one server does neither', async () => {
  const received: URLSearchParams[] = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(new URL(request.url ?? '/', 'http://localhost').searchParams);
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const inserts = async (warehouse: ClickhouseWarehouse) => {
    await warehouse.insertJsonEachRow('events', '{"uuid":"0190a3f2-0000-7000-8000-000000000001"}');
    await warehouse.insertRowBinary('events', [{ name: 'uuid', type: 'UUID' }], [Buffer.alloc(16)]);
    await warehouse.insert('tally_migrations', [{ version: 1 }]);
    await warehouse.command('INSERT INTO event_uuids SELECT team_id, uuid FROM events');
  };
  const cluster = new ClickhouseWarehouse(url, 'analytics', 'tally_cluster');
  const single = new ClickhouseWarehouse(url, 'analytics');
  try {
    await inserts(cluster);
    assert.equal(received.length, 4);
    for (const params of received.splice(0)) {
      assert.equal(params.get('distributed_foreground_insert'), '1', params.get('query') ?? 'insert');
      assert.equal(params.get('wait_for_async_insert'), '1');
      assert.equal(params.get('distributed_product_mode'), 'global', 'subqueries over the events run once for every shard');
    }
    await inserts(single);
    assert.equal(received.length, 4);
    assert.ok(received.every((params) => !params.has('distributed_foreground_insert') && !params.has('distributed_product_mode')));
  } finally {
    await cluster.close();
    await single.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
