import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DateTime } from 'luxon';
import {
  activeUsersWindow,
  aggregateDays,
  formatDay,
  formatLabel,
  instantPlus,
  parseDate,
  previousPeriod,
  resolveDateRange,
  toWarehouseTime,
  truncate,
  type DateRangeInput,
  type ProjectClock,
} from '../../src/query/date-range.js';
import { ValidationError } from '../../src/errors.js';

// Sunday 15 March 2020, 10:20:30 UTC.
const NOW = DateTime.fromISO('2020-03-15T10:20:30.000Z', { zone: 'UTC' });

function clock(timezone = 'UTC', weekStartDay: 0 | 1 = 0, now = NOW): ProjectClock {
  return { timezone, weekStartDay, now };
}

function input(dates: Partial<DateRangeInput>): DateRangeInput {
  return { dateFrom: null, dateTo: null, interval: 'day', explicitDate: false, ...dates };
}

/** ISO text of a parse in UTC, for compact assertions. */
function parsedIso(text: string, zone = 'UTC', now = NOW): string | null {
  const parsed = parseDate(text, zone, now);
  return parsed ? parsed.at.toISO() : null;
}

describe('parseDate: absolute dates', () => {
  test('a date, an unpadded date and date-times without offset are in the project timezone', () => {
    assert.equal(parsedIso('2020-01-02'), '2020-01-02T00:00:00.000Z');
    assert.equal(parsedIso('2020-1-2'), '2020-01-02T00:00:00.000Z');
    assert.equal(parsedIso('2020-01-02T10:11'), '2020-01-02T10:11:00.000Z');
    assert.equal(parsedIso('2020-01-02 10:11:12.345678'), '2020-01-02T10:11:12.345Z');
    assert.equal(parsedIso('2020-01-02', 'US/Pacific'), '2020-01-02T00:00:00.000-08:00');
    assert.equal(parseDate('2020-01-02', 'UTC', NOW)!.dateOnly, true);
  });

  test('an offset is converted to the project timezone', () => {
    assert.equal(parsedIso('2020-01-02T10:00:00+02:00'), '2020-01-02T08:00:00.000Z');
    assert.equal(parsedIso('2020-01-02T10:00:00Z', 'Europe/London'), '2020-01-02T10:00:00.000+00:00');
    assert.equal(parsedIso('2020-07-02T10:00:00Z', 'Europe/London'), '2020-07-02T11:00:00.000+01:00');
  });

  test('impossible dates and garbage are not dates', () => {
    assert.equal(parsedIso('2020-02-30'), null);
    assert.equal(parsedIso('garbage'), null);
    assert.equal(parsedIso(''), null);
    assert.equal(parsedIso('-7x'), null);
  });
});

describe('parseDate: every relative form, from Sunday 2020-03-15 10:20:30', () => {
  const cases: Array<[string, string]> = [
    ['-24h', '2020-03-14T10:20:30.000Z'],
    ['-7d', '2020-03-08T10:20:30.000Z'],
    ['-2w', '2020-03-01T10:20:30.000Z'],
    ['-1m', '2020-02-15T10:20:30.000Z'],
    ['-1y', '2019-03-15T10:20:30.000Z'],
    ['-1q', '2019-12-15T10:20:30.000Z'],
    ['-30M', '2020-03-15T09:50:30.000Z'],
    ['-10s', '2020-03-15T10:20:20.000Z'],
    ['dStart', '2020-03-15T00:00:00.000Z'],
    ['-1dStart', '2020-03-14T00:00:00.000Z'],
    ['-1dEnd', '2020-03-14T23:59:59.999Z'],
    ['hStart', '2020-03-15T10:00:00.000Z'],
    ['mStart', '2020-03-01T10:20:30.000Z'],
    ['-1mStart', '2020-02-01T10:20:30.000Z'],
    ['-1mEnd', '2020-02-29T10:20:30.000Z'],
    ['yStart', '2020-01-01T10:20:30.000Z'],
    ['7d', '2020-03-08T10:20:30.000Z'],
  ];
  for (const [text, expected] of cases) {
    test(text, () => assert.equal(parsedIso(text), expected));
  }

  test('days are calendar days on the wall clock across DST (US/Pacific, 2020-03-08)', () => {
    const now = DateTime.fromISO('2020-03-10T12:00:00', { zone: 'US/Pacific' });
    assert.equal(parsedIso('-7d', 'US/Pacific', now), '2020-03-03T12:00:00.000-08:00');
    assert.equal(parsedIso('-1dStart', 'US/Pacific', now), '2020-03-09T00:00:00.000-07:00');
  });

  test('a relative date further than any time is no date, in any zone', () => {
    for (const zone of ['UTC', 'America/New_York']) {
      for (const text of ['-99999999999d', '-9999999999h', '-99999999w', '-999999999999m', '-99999999y', '-9999999999999q', '-999999999999999999999s']) {
        assert.equal(parseDate(text, zone, NOW), null, `${text} in ${zone}`);
      }
    }
    assert.throws(() => resolveDateRange(input({ dateFrom: '-99999999999d', interval: 'week' }), clock()), ValidationError);
  });

  test('-1mEnd clamps to the last day of the previous month', () => {
    const now = DateTime.fromISO('2021-03-31T08:00:00Z', { zone: 'UTC' });
    assert.equal(parsedIso('-1mEnd', 'UTC', now), '2021-02-28T08:00:00.000Z');
    assert.equal(parsedIso('-1m', 'UTC', now), '2021-02-28T08:00:00.000Z');
  });
});

describe('resolveDateRange', () => {
  test('defaults: the last 7 days through the end of today, one bucket per day', () => {
    const range = resolveDateRange(input({}), clock());
    assert.equal(range.from.toISO(), '2020-03-08T00:00:00.000Z');
    assert.equal(range.to.toISO(), '2020-03-15T23:59:59.999Z');
    assert.equal(range.buckets.length, 8);
    assert.deepEqual(
      range.buckets.map((bucket) => formatLabel(bucket, 'day')),
      ['8-Mar-2020', '9-Mar-2020', '10-Mar-2020', '11-Mar-2020', '12-Mar-2020', '13-Mar-2020', '14-Mar-2020', '15-Mar-2020'],
    );
  });

  test('absolute bounds are inclusive whole days', () => {
    const range = resolveDateRange(input({ dateFrom: '2020-01-01', dateTo: '2020-01-03' }), clock());
    assert.equal(toWarehouseTime(range.roundedFrom), '2020-01-01 00:00:00.000000');
    assert.equal(toWarehouseTime(range.to), '2020-01-03 23:59:59.999999');
    assert.deepEqual(
      range.buckets.map((bucket) => formatDay(bucket, 'day')),
      ['2020-01-01', '2020-01-02', '2020-01-03'],
    );
  });

  test('a relative date_to ends at the end of its day', () => {
    const range = resolveDateRange(input({ dateFrom: '-3d', dateTo: '-1d' }), clock());
    assert.equal(range.from.toISO(), '2020-03-12T00:00:00.000Z');
    assert.equal(range.to.toISO(), '2020-03-14T23:59:59.999Z');
  });

  test('hourly: -24h keeps hour precision; the upper bound without date_to is now + 1 minute', () => {
    const range = resolveDateRange(input({ dateFrom: '-24h', interval: 'hour' }), clock());
    assert.equal(range.from.toISO(), '2020-03-14T10:00:00.000Z');
    assert.equal(range.to.toISO(), '2020-03-15T10:21:30.000Z');
    assert.equal(range.buckets.length, 25);
    assert.equal(formatLabel(range.buckets[0]!, 'hour'), '14-Mar-2020 10:00');
    assert.equal(formatDay(range.buckets[0]!, 'hour'), '2020-03-14 10:00:00');
  });

  test('-24h with a day interval is still hourly at the lower bound', () => {
    const range = resolveDateRange(input({ dateFrom: '-24h' }), clock());
    assert.equal(range.from.toISO(), '2020-03-14T10:00:00.000Z');
  });

  test('week rounding: 2020-11-04 starts at Sunday 2020-11-01, or Monday 2020-11-02', () => {
    const sunday = resolveDateRange(input({ dateFrom: '2020-11-04', dateTo: '2020-11-20', interval: 'week' }), clock());
    assert.equal(sunday.roundedFrom.toISODate(), '2020-11-01');
    assert.deepEqual(
      sunday.buckets.map((bucket) => formatLabel(bucket, 'week')),
      ['1-Nov-2020', '8-Nov-2020', '15-Nov-2020'],
    );
    const monday = resolveDateRange(input({ dateFrom: '2020-11-04', dateTo: '2020-11-20', interval: 'week' }), clock('UTC', 1));
    assert.equal(monday.roundedFrom.toISODate(), '2020-11-02');
    assert.deepEqual(
      monday.buckets.map((bucket) => formatDay(bucket, 'week')),
      ['2020-11-02', '2020-11-09', '2020-11-16'],
    );
  });

  test('month rounding and labels', () => {
    const range = resolveDateRange(input({ dateFrom: '2020-01-15', dateTo: '2020-03-02', interval: 'month' }), clock());
    assert.equal(range.roundedFrom.toISODate(), '2020-01-01');
    assert.deepEqual(
      range.buckets.map((bucket) => formatLabel(bucket, 'month')),
      ['1-Jan-2020', '1-Feb-2020', '1-Mar-2020'],
    );
  });

  test('explicit_date keeps the bounds as given', () => {
    const range = resolveDateRange(input({ dateFrom: '2020-01-01T05:30:00', dateTo: '2020-01-02T06:00:00', explicitDate: true }), clock());
    assert.equal(range.roundedFrom.toISO(), '2020-01-01T05:30:00.000Z');
    assert.equal(range.to.toISO(), '2020-01-02T06:00:00.000Z');
  });

  test('all starts at the earliest event', () => {
    const earliest = DateTime.fromISO('2020-03-12T15:00:00Z', { zone: 'UTC' });
    const range = resolveDateRange(input({ dateFrom: 'all' }), clock(), earliest);
    assert.equal(range.from.toISO(), '2020-03-12T00:00:00.000Z');
    assert.equal(range.buckets.length, 4);
  });

  test('unparseable dates are ValidationErrors naming the field', () => {
    assert.throws(
      () => resolveDateRange(input({ dateFrom: 'yesterday-ish' }), clock()),
      (error: unknown) => {
        return error instanceof ValidationError && error.attr === 'date_from';
      },
    );
    assert.throws(
      () => resolveDateRange(input({ dateTo: '2020-13-01' }), clock()),
      (error: unknown) => {
        return error instanceof ValidationError && error.attr === 'date_to';
      },
    );
  });

  test('the project timezone decides the day boundaries', () => {
    const range = resolveDateRange(input({ dateFrom: '2020-01-01', dateTo: '2020-01-02' }), clock('US/Pacific'));
    assert.equal(toWarehouseTime(range.roundedFrom), '2020-01-01 08:00:00.000000');
    assert.equal(toWarehouseTime(range.to), '2020-01-03 07:59:59.999999');
  });
});

describe('DST: buckets stay on local midnight', () => {
  test('US/Pacific days across the spring-forward of 2020-03-08', () => {
    const range = resolveDateRange(input({ dateFrom: '2020-03-07', dateTo: '2020-03-09' }), clock('US/Pacific'));
    assert.deepEqual(
      range.buckets.map((bucket) => toWarehouseTime(bucket)),
      ['2020-03-07 08:00:00.000000', '2020-03-08 08:00:00.000000', '2020-03-09 07:00:00.000000'],
    );
    assert.equal(toWarehouseTime(range.to), '2020-03-10 06:59:59.999999');
  });

  test('US/Pacific Sunday weeks across the fall-back of 2020-11-01', () => {
    const range = resolveDateRange(input({ dateFrom: '2020-10-25', dateTo: '2020-11-14', interval: 'week' }), clock('US/Pacific'));
    assert.deepEqual(
      range.buckets.map((bucket) => formatDay(bucket, 'week')),
      ['2020-10-25', '2020-11-01', '2020-11-08'],
    );
    assert.deepEqual(
      range.buckets.map((bucket) => toWarehouseTime(bucket)),
      ['2020-10-25 07:00:00.000000', '2020-11-01 07:00:00.000000', '2020-11-08 08:00:00.000000'],
    );
  });

  test('Europe/London weeks across both changes of 2020', () => {
    const spring = resolveDateRange(input({ dateFrom: '2020-03-22', dateTo: '2020-04-04', interval: 'week' }), clock('Europe/London', 1));
    assert.deepEqual(
      spring.buckets.map((bucket) => toWarehouseTime(bucket)),
      ['2020-03-16 00:00:00.000000', '2020-03-23 00:00:00.000000', '2020-03-29 23:00:00.000000'],
    );
    // The clocks go back at 02:00 on Sunday 25 October, so that Sunday's midnight is still BST.
    const autumn = resolveDateRange(input({ dateFrom: '2020-10-18', dateTo: '2020-11-07', interval: 'week' }), clock('Europe/London'));
    assert.deepEqual(
      autumn.buckets.map((bucket) => toWarehouseTime(bucket)),
      ['2020-10-17 23:00:00.000000', '2020-10-24 23:00:00.000000', '2020-11-01 00:00:00.000000'],
    );
  });

  test('Europe/London hours across the spring-forward skip 01:00', () => {
    const range = resolveDateRange(input({ dateFrom: '2020-03-29T00:00:00', dateTo: '2020-03-29T03:00:00', interval: 'hour' }), clock('Europe/London'));
    assert.deepEqual(
      range.buckets.map((bucket) => formatDay(bucket, 'hour')),
      ['2020-03-29 00:00:00', '2020-03-29 02:00:00', '2020-03-29 03:00:00'],
    );
  });

  test('truncate to weeks in the project timezone', () => {
    const at = DateTime.fromISO('2020-03-11T03:00:00Z').setZone('US/Pacific');
    assert.equal(truncate(at, 'week', 0).toISO(), '2020-03-08T00:00:00.000-08:00');
    assert.equal(truncate(at, 'week', 1).toISO(), '2020-03-09T00:00:00.000-07:00');
  });
});

describe('compare: the previous period', () => {
  test('absolute dates: the same number of days just before', () => {
    const previous = previousPeriod(input({ dateFrom: '2020-01-03', dateTo: '2020-01-04' }), clock());
    const range = resolveDateRange(previous, clock());
    assert.equal(range.from.toISODate(), '2020-01-01');
    assert.equal(range.to.toISODate(), '2020-01-02');
  });

  test('-7d lines up with the week before (PostHog adds a day)', () => {
    const current = resolveDateRange(input({ dateFrom: '-7d' }), clock());
    const previous = resolveDateRange(previousPeriod(input({ dateFrom: '-7d' }), clock()), clock());
    assert.equal(current.buckets.length, 8);
    assert.equal(previous.buckets.length, 8);
    assert.equal(previous.from.toISODate(), '2020-03-01');
    assert.equal(previous.to.toISODate(), '2020-03-08');
  });

  test('date_from=all cannot be compared', () => {
    assert.throws(() => previousPeriod(input({ dateFrom: 'all' }), clock()), ValidationError);
  });
});

test('aggregate displays list days from date_from in fixed steps', () => {
  assert.deepEqual(aggregateDays(input({ dateFrom: '2020-01-01', dateTo: '2020-01-03' }), clock()), ['2020-01-01', '2020-01-02', '2020-01-03']);
  assert.deepEqual(aggregateDays(input({ dateFrom: 'all' }), clock()), []);
});

test('active users windows: the 7 days ending with the bucket', () => {
  const window = activeUsersWindow(DateTime.fromISO('2020-03-10T00:00:00', { zone: 'US/Pacific' }), 7);
  assert.equal(window.after.toISO(), '2020-03-04T00:00:00.000-08:00');
  assert.equal(window.upTo.toISO(), '2020-03-11T00:00:00.000-07:00');
});

describe('axes in fixed-offset zones', () => {
  test('UTC (arithmetic on the instant) gives the same axis as the calendar path of an IANA zone of offset 0', () => {
    for (const interval of ['hour', 'day', 'week', 'month'] as const) {
      for (const [dateFrom, dateTo] of [
        ['-30d', null],
        ['2019-12-25', '2020-03-03'],
        ['-2h', null],
        ['2016-02-27', '2016-03-02'],
      ] as const) {
        const axis = (timezone: string) =>
          resolveDateRange(input({ dateFrom, dateTo, interval }), clock(timezone)).buckets.map(
            (bucket) => `${formatDay(bucket, interval)}|${formatLabel(bucket, interval)}|${bucket.toMillis()}`,
          );
        assert.deepEqual(axis('UTC'), axis('Etc/UTC'), `${interval} ${dateFrom}`);
      }
    }
  });

  test('a fixed offset other than 0 gives the axis of an IANA zone of that offset and no DST', () => {
    for (const interval of ['hour', 'day', 'week', 'month'] as const) {
      const axis = (timezone: string) =>
        resolveDateRange(input({ dateFrom: '-30d', dateTo: null, interval }), clock(timezone)).buckets.map((bucket) => bucket.toMillis());
      assert.deepEqual(axis('UTC+5:30'), axis('Asia/Kolkata'), interval);
    }
  });

  test('moving a time by milliseconds is what luxon gives, across DST and in any locale', () => {
    for (const zone of ['UTC', 'UTC-3', 'America/New_York', 'Europe/London']) {
      for (const iso of ['2020-03-08T01:30:00', '2020-11-01T00:59:59.999', '2020-03-29T00:30:00', '2024-02-29T23:00:00']) {
        for (const locale of [undefined, 'fr-FR']) {
          const at = DateTime.fromISO(iso, { zone, locale });
          for (const milliseconds of [1, 3_600_000, 86_399_999, 86_400_000, 7 * 86_400_000, -3_600_000]) {
            const moved = instantPlus(at, milliseconds);
            const expected = at.plus(milliseconds);
            assert.equal(moved.toMillis(), expected.toMillis());
            assert.equal(moved.toISO(), expected.toISO(), `${zone} ${iso} ${milliseconds}`);
            assert.equal(moved.zoneName, expected.zoneName);
            assert.equal(moved.toFormat('d LLL yyyy'), expected.toFormat('d LLL yyyy'));
          }
        }
      }
    }
  });

  test("days and labels are written as luxon's toFormat writes them, in any zone", () => {
    for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
      for (let step = 0; step < 400; step++) {
        const at = DateTime.fromMillis(Date.UTC(1000, 0, 1) + step * 23_456_789_012, { zone });
        assert.equal(formatDay(at, 'day'), at.toFormat('yyyy-MM-dd'));
        assert.equal(formatDay(at, 'hour'), at.toFormat('yyyy-MM-dd HH:mm:ss'));
        assert.equal(formatLabel(at, 'day'), at.setLocale('en-US').toFormat('d-LLL-yyyy'));
        assert.equal(formatLabel(at, 'hour'), at.setLocale('en-US').toFormat('d-LLL-yyyy HH:mm'));
      }
    }
  });
});
