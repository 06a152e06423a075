import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { CatalogCaptureLog, loggedEventsText, type CaptureLog, type CaptureLogEntry, type StoredCaptureLogEntry } from '../../src/capture/capture-log.js';
import { serializeLoggedEvents } from '../../src/capture/logged-events-json.js';
import { FileCaptureLog } from '../../src/capture/spool/file-capture-log.js';
import type { LoggedEvent } from '../../src/capture/normalize-event.js';
import { CATALOG_BACKENDS } from '../support/catalogs.js';
import { tempDataDir } from '../support/tally.js';

function loggedEvent(uuid: string, event: string): LoggedEvent {
  return {
    uuid,
    event,
    distinctId: 'd',
    properties: { line: 'one\ntwo', quote: '"', emoji: '\u{1F600}', nested: { list: [1, null, true] } },
    time: 1_704_067_200_000.123,
    elementsChain: '',
    processPerson: true,
  };
}

function logEntry(teamId: number, receivedAt: number, events: LoggedEvent[]): CaptureLogEntry {
  return { teamId, receivedAt, eventCount: events.length, events: Buffer.from(JSON.stringify(events)) };
}

function eventsOf(entry: StoredCaptureLogEntry): LoggedEvent[] {
  return JSON.parse(loggedEventsText(entry.events)) as LoggedEvent[];
}

const UUIDS = ['0190a3f2-0000-7000-8000-000000000001', '0190a3f2-0000-7000-8000-000000000002', '0190a3f2-0000-7000-8000-000000000003'];

/** What every capture log does, whatever keeps it. */
async function checkLogContract(log: CaptureLog): Promise<void> {
  assert.equal(await log.lastId(), 0);
  const ids = await log.append([
    logEntry(7, 1_704_067_300_000, [loggedEvent(UUIDS[0]!, 'a'), loggedEvent(UUIDS[1]!, 'b')]),
    logEntry(8, 1_704_067_400_000, [loggedEvent(UUIDS[2]!, 'c')]),
  ]);
  const end = await log.lastId();
  const first = await log.read(1, 0, end);
  assert.equal(first.length, 1, 'a request over the budget is still read, alone');
  assert.deepEqual(
    first.map((entry) => [entry.teamId, entry.receivedAt, eventsOf(entry)]),
    [[7, 1_704_067_300_000, [loggedEvent(UUIDS[0]!, 'a'), loggedEvent(UUIDS[1]!, 'b')]]],
  );
  const both = await log.read(3, 0, end);
  assert.deepEqual(
    both.map((entry) => entry.teamId),
    [7, 8],
  );
  assert.deepEqual(
    ids,
    both.map((entry) => entry.id),
    "append returns each request's id, in order",
  );
  assert.equal(end, ids[1]);
  const heldEvents = serializeLoggedEvents([loggedEvent(UUIDS[0]!, 'held')]);
  const held = await log.read(3, 0, end, (id) =>
    id === ids[1] ? { events: Buffer.from(heldEvents.json), propertiesSpans: heldEvents.propertiesSpans } : undefined,
  );
  assert.deepEqual(
    held.map((entry) => eventsOf(entry).map((event) => event.event)),
    [['a', 'b'], ['held']],
    'events held in memory are not read back',
  );
  assert.deepEqual(
    held.map((entry) => entry.propertiesSpans),
    [undefined, heldEvents.propertiesSpans],
    'where the properties lie is known for held events only',
  );
  assert.deepEqual(eventsOf(both[1]!), [loggedEvent(UUIDS[2]!, 'c')]);
  assert.equal((await log.read(10, 0, first[0]!.id)).length, 1, 'nothing past the bound');
  assert.deepEqual(
    (await log.read(10, first[0]!.id, end)).map((entry) => entry.id),
    [both[1]!.id],
    'only after',
  );
  await log.remove(first[0]!.id);
  assert.deepEqual(
    (await log.read(10, 0, end)).map((entry) => entry.id),
    [both[1]!.id],
  );
  await log.remove(end);
  assert.deepEqual(await log.read(10, 0, end), []);
  const [next] = await log.append([logEntry(7, 1_704_067_500_000, [loggedEvent(UUIDS[0]!, 'd')])]);
  assert.ok(next! > end, 'ids keep ascending after removal');
  assert.equal(await log.lastId(), next);

  const resolved: number[] = [];
  const concurrent = await Promise.all(
    ['e', 'f', 'g'].map(async (name, index) => {
      const [id] = await log.append([logEntry(9, index, [loggedEvent(UUIDS[index]!, name)])]);
      resolved.push(id!);
      return id!;
    }),
  );
  assert.deepEqual(resolved, concurrent, 'appends made without waiting resolve in the order they were made');
  assert.deepEqual(
    concurrent,
    [...concurrent].sort((a, b) => a - b),
    'and take ids in that order',
  );
  assert.ok(concurrent[0]! > next!);
  assert.deepEqual(
    (await log.read(10, next!, await log.lastId())).map((entry) => [entry.id, eventsOf(entry)[0]!.event]),
    [
      [concurrent[0], 'e'],
      [concurrent[1], 'f'],
      [concurrent[2], 'g'],
    ],
  );
}

describe('capture log in files', () => {
  test('requests read back whole and in order, about a budget of events at a time, up to a bound; removal up to an id', async () => {
    const directory = tempDataDir('tally-capture-files-');
    const log = await FileCaptureLog.open(directory);
    try {
      await checkLogContract(log);
    } finally {
      await log.close();
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  test('reopened, it holds what was appended and not removed; a write cut short at the end is dropped; removed segments are deleted', async () => {
    const directory = tempDataDir('tally-capture-files-');
    try {
      const log = await FileCaptureLog.open(directory);
      const [first] = await log.append([logEntry(7, 1, [loggedEvent(UUIDS[0]!, 'a')])]);
      const [second] = await log.append([logEntry(7, 2, [loggedEvent(UUIDS[1]!, 'b')])]);
      await log.remove(first!);
      await log.close();
      const [segment] = fs.readdirSync(directory).filter((name) => name.endsWith('.log'));
      const intact = fs.statSync(path.join(directory, segment!)).size;
      // A crash in the middle of the next append: half a record at the end.
      const record = fs.readFileSync(path.join(directory, segment!)).subarray(0, intact);
      fs.appendFileSync(path.join(directory, segment!), record.subarray(record.length - 40));

      const reopened = await FileCaptureLog.open(directory);
      assert.equal(fs.statSync(path.join(directory, segment!)).size, intact, 'the torn write is cut off');
      assert.equal(await reopened.lastId(), second);
      const [third] = await reopened.append([logEntry(8, 3, [loggedEvent(UUIDS[2]!, 'c')])]);
      assert.equal(third, second! + 1);
      await reopened.close();

      const again = await FileCaptureLog.open(directory);
      const kept = await again.read(10, 0, await again.lastId());
      assert.deepEqual(
        kept.map((entry) => [entry.id, entry.teamId, entry.receivedAt, eventsOf(entry).map((event) => event.event)]),
        [
          [second, 7, 2, ['b']],
          [third, 8, 3, ['c']],
        ],
      );
      await again.remove(third!);
      assert.deepEqual(fs.readdirSync(directory), ['removed'], 'every segment is deleted once its entries are removed');
      await again.close();

      const emptied = await FileCaptureLog.open(directory);
      assert.deepEqual(await emptied.read(10, 0, Number.MAX_SAFE_INTEGER), []);
      const [fourth] = await emptied.append([logEntry(7, 4, [loggedEvent(UUIDS[0]!, 'd')])]);
      assert.equal(fourth, third! + 1, 'ids are never reused, even once every file is gone');
      await emptied.close();
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  test('a copy holds every entry not removed, whole, with appends acknowledged before it, and opens as the log', async () => {
    const directory = tempDataDir('tally-capture-files-');
    const target = path.join(tempDataDir('tally-capture-copy-'), 'log');
    try {
      // Small segments: the copy spans several, one of them partly removed.
      const log = await FileCaptureLog.open(directory, { segmentBytes: 600 });
      const ids: number[] = [];
      for (let index = 0; index < 8; index++) {
        ids.push(...(await log.append([logEntry(7, index, [loggedEvent(UUIDS[index % 3]!, `e${index}`), loggedEvent(UUIDS[0]!, 'x')])])));
      }
      await log.remove(ids[2]!);
      // An append not awaited yet when the copy starts is in it once written.
      const pending = log.append([logEntry(9, 100, [loggedEvent(UUIDS[1]!, 'pending')])]);
      const copy = await log.copyTo(target);
      const [pendingId] = await pending;
      const logBytes = fs
        .readdirSync(directory)
        .filter((name) => name.endsWith('.log'))
        .reduce((total, name) => total + fs.statSync(path.join(directory, name)).size, 0);
      assert.deepEqual(copy.entries, 6);
      assert.deepEqual(copy.events, 11);
      // Appends after the copy are not in it.
      await log.append([logEntry(9, 101, [loggedEvent(UUIDS[2]!, 'later')])]);
      await log.close();
      assert.ok(fs.readdirSync(target).includes('removed'));
      const copiedBytes = fs
        .readdirSync(target)
        .filter((name) => name.endsWith('.log'))
        .reduce((total, name) => total + fs.statSync(path.join(target, name)).size, 0);
      assert.equal(copy.bytes, copiedBytes);
      assert.ok(copiedBytes < logBytes, 'removed records at the start of a segment are not copied');

      const copied = await FileCaptureLog.open(target);
      try {
        const entries = await copied.read(1000, 0, Number.MAX_SAFE_INTEGER);
        assert.deepEqual(
          entries.map((entry) => [entry.id, entry.teamId, entry.receivedAt, eventsOf(entry).map((event) => event.event)]),
          [...ids.slice(3).map((id, index) => [id, 7, index + 3, [`e${index + 3}`, 'x']]), [pendingId, 9, 100, ['pending']]],
        );
        assert.equal(await copied.lastId(), pendingId);
      } finally {
        await copied.close();
      }
      await assert.rejects(log.copyTo(target), 'a copy never overwrites one');
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
      fs.rmSync(path.dirname(target), { recursive: true, force: true });
    }
  });

  test('a read from disk returns every entry it chose even when a removal compacts the index meanwhile', async () => {
    const directory = tempDataDir('tally-capture-files-');
    try {
      const writing = await FileCaptureLog.open(directory);
      const ids = await writing.append(Array.from({ length: 1100 }, (_, index) => logEntry(7, index, [loggedEvent(UUIDS[0]!, `e${index}`)])));
      await writing.close();
      // Reopened, nothing is held in memory: every entry read waits on the disk.
      const log = await FileCaptureLog.open(directory);
      const reading = log.read(40, ids[1059]!, ids[1099]!);
      await log.remove(ids[1059]!);
      assert.deepEqual(
        (await reading).map((entry) => eventsOf(entry)[0]!.event),
        Array.from({ length: 40 }, (_, index) => `e${1060 + index}`),
      );
      await log.close();
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  test('an append starts its write while the one before is still on its way to disk, and still resolves after it', async () => {
    const directory = tempDataDir('tally-capture-files-');
    const log = await FileCaptureLog.open(directory);
    // Every FileHandle shares one prototype: holding its writes holds the log's without reaching into the log.
    const probe = await fs.promises.open(path.join(directory, 'probe'), 'w');
    const handles = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const write = handles.write;
    const held: { release: () => void }[] = [];
    try {
      // The first append opens the segment, so the held ones below wait on nothing but each other.
      const [opened] = await log.append([logEntry(7, 0, [loggedEvent(UUIDS[0]!, 'opened')])]);
      handles.write = function (this: unknown, ...args: unknown[]) {
        return new Promise<void>((resolve) => held.push({ release: resolve })).then(() => write.apply(this, args));
      };
      const resolved: string[] = [];
      const appends = ['first', 'second'].map((name, index) =>
        log.append([logEntry(7, index + 1, [loggedEvent(UUIDS[index + 1]!, name)])]).then((ids) => {
          resolved.push(name);
          return ids;
        }),
      );
      const deadline = Date.now() + 5_000;
      while (held.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
      assert.equal(held.length, 2, 'the second write started while the first was held');
      handles.write = write;
      held[1]!.release();
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(resolved, [], 'a later write that ends first does not resolve its append');
      held[0]!.release();
      const ids = (await Promise.all(appends)).flat();
      assert.deepEqual(resolved, ['first', 'second']);
      assert.deepEqual(ids, [opened! + 1, opened! + 2]);
      assert.deepEqual(
        (await log.read(10, opened!, ids[1]!)).map((entry) => eventsOf(entry)[0]!.event),
        ['first', 'second'],
      );
    } finally {
      handles.write = write;
      for (const { release } of held) release();
      await log.close();
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  test('a full segment is followed by a new one; segments go once all their entries are removed, the one being written last', async () => {
    const directory = tempDataDir('tally-capture-files-');
    const segments = () => fs.readdirSync(directory).filter((name) => name.endsWith('.log')).length;
    try {
      // Every append fills a one-byte segment; made at once, each waits for the one before to leave its segment.
      const log = await FileCaptureLog.open(directory, { segmentBytes: 1 });
      const ids = (await Promise.all(UUIDS.map((uuid, index) => log.append([logEntry(7, index, [loggedEvent(uuid, `e${index}`)])])))).flat();
      assert.equal(segments(), 3);
      await log.remove(ids[0]!);
      assert.equal(segments(), 2);
      assert.deepEqual(
        (await log.read(10, 0, ids[2]!)).map((entry) => eventsOf(entry)[0]!.event),
        ['e1', 'e2'],
        'the others are read from their own segments',
      );
      await log.remove(ids[1]!);
      assert.equal(segments(), 1);
      await log.close();

      const reopened = await FileCaptureLog.open(directory, { segmentBytes: 1 });
      assert.deepEqual(
        (await reopened.read(10, 0, await reopened.lastId())).map((entry) => [entry.id, eventsOf(entry)[0]!.event]),
        [[ids[2], 'e2']],
      );
      await reopened.remove(ids[2]!);
      assert.equal(segments(), 0);
      await reopened.close();
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});

for (const backend of CATALOG_BACKENDS) {
  describe(`capture log on ${backend.name}`, { skip: backend.skip ?? false }, () => {
    test('requests read back whole and in order, about a budget of events at a time, up to a bound; removal up to an id', async () => {
      const { catalog, dispose } = await backend.open();
      try {
        await checkLogContract(new CatalogCaptureLog(catalog.db, catalog.dialect));
      } finally {
        await dispose();
      }
    });
  });
}
