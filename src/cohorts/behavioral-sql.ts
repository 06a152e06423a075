import type { DateTime } from 'luxon';
import { ValidationError } from '../errors.js';
import { parseDate, toWarehouseTime } from '../query/date-range.js';
import type { EventSource } from '../query/event-source.js';
import type { SqlParams } from '../query/sql-params.js';
import type { BehavioralEntity, BehavioralFilter, TimeSpan } from './cohort-filter-model.js';

/** Compiles what a behavioural filter's events must match (entity and event filters) on `events AS e`. */
export interface EventMatcher {
  entity(entity: BehavioralEntity): Promise<string>;
  eventFilters(filter: BehavioralFilter): Promise<string>;
}

const ADD_FUNCTION: Record<TimeSpan['interval'], string> = {
  minute: 'addMinutes',
  hour: 'addHours',
  day: 'addDays',
  week: 'addWeeks',
  month: 'addMonths',
  year: 'addYears',
};

function before(now: DateTime, span: TimeSpan, times = 1): DateTime {
  return now.minus({ [`${span.interval}s`]: span.value * times });
}

/** Whether a count of zero passes `count <operator> value` (value is at least 1). */
function zeroPasses(filter: BehavioralFilter): boolean {
  return filter.countOperator === '<' || filter.countOperator === '<=';
}

/** A person with no matching events satisfies only "fewer than" counts. */
function holdsWithoutEvents(filter: BehavioralFilter): boolean {
  if (filter.behavior === 'performed_event_multiple') return zeroPasses(filter);
  // Every period then passes, and min_periods never exceeds total_periods.
  if (filter.behavior === 'performed_event_regularly') return zeroPasses(filter);
  return false;
}

/**
 * One aggregate per behavioural filter, computed per person over the project's events (PostHog's
 * cohort "behaviour" subquery): each filter becomes a 0/1 column `behaviour_N`, and the scan reads
 * only events that some filter can match, back to the earliest window any filter needs.
 */
export class BehaviourAggregates {
  private readonly columns: string[] = [];
  private readonly matches: string[] = [];
  private earliest: DateTime | null = null;
  private unbounded = false;

  constructor(
    private readonly params: SqlParams,
    private readonly source: EventSource,
    private readonly matcher: EventMatcher,
    private readonly now: DateTime,
  ) {}

  get isEmpty(): boolean {
    return this.columns.length === 0;
  }

  private at(time: DateTime): string {
    return this.params.add(toWarehouseTime(time), "DateTime64(6, 'UTC')");
  }

  private needsFrom(time: DateTime | null): void {
    if (time === null) this.unbounded = true;
    else if (this.earliest === null || time < this.earliest) this.earliest = time;
  }

  private windowStart(filter: BehavioralFilter): DateTime {
    if (filter.explicitDatetime !== null) {
      const parsed = parseDate(filter.explicitDatetime, 'UTC', this.now);
      if (!parsed) throw new ValidationError('filters', `explicit_datetime "${filter.explicitDatetime}" is not a date.`);
      return parsed.at;
    }
    return before(this.now, filter.window!);
  }

  private async match(filter: BehavioralFilter, entity: BehavioralEntity = filter.entity): Promise<string> {
    const parts = [await this.matcher.entity(entity)];
    const properties = await this.matcher.eventFilters(filter);
    if (properties !== '1') parts.push(properties);
    const condition = parts.map((part) => `(${part})`).join(' AND ');
    this.matches.push(condition);
    return condition;
  }

  /** Adds the filter's column and returns its (non-negated) condition on the joined row. */
  async add(filter: BehavioralFilter): Promise<string> {
    const ts = 'e.timestamp';
    const now = this.at(this.now);
    const matches = await this.match(filter);
    let expression: string;
    switch (filter.behavior) {
      case 'performed_event':
      case 'performed_event_multiple': {
        const start = this.windowStart(filter);
        this.needsFrom(start);
        const count = `countIf(${matches} AND ${ts} > ${this.at(start)} AND ${ts} < ${now})`;
        expression =
          filter.behavior === 'performed_event' ? `${count} > 0` : `${count} ${filter.countOperator} ${this.params.add(filter.operatorValue, 'UInt64')}`;
        break;
      }
      case 'performed_event_first_time': {
        // The first matching event ever must fall in the window, so the whole history is read.
        this.needsFrom(null);
        const first = `minIf(${ts}, ${matches})`;
        expression = `countIf(${matches}) > 0 AND ${first} >= ${this.at(this.windowStart(filter))} AND ${first} < ${now}`;
        break;
      }
      case 'stopped_performing_event': {
        const start = this.windowStart(filter);
        const recent = before(this.now, filter.seqWindow!);
        this.needsFrom(start);
        expression =
          `countIf(${matches} AND ${ts} > ${this.at(start)} AND ${ts} <= ${this.at(recent)}) > 0 AND ` +
          `countIf(${matches} AND ${ts} > ${this.at(recent)} AND ${ts} <= ${now}) = 0`;
        break;
      }
      case 'restarted_performing_event': {
        const start = this.windowStart(filter);
        const recent = before(this.now, filter.seqWindow!);
        this.needsFrom(null);
        expression =
          `countIf(${matches} AND ${ts} <= ${this.at(start)}) > 0 AND ` +
          `countIf(${matches} AND ${ts} > ${this.at(start)} AND ${ts} <= ${this.at(recent)}) = 0 AND ` +
          `countIf(${matches} AND ${ts} > ${this.at(recent)} AND ${ts} <= ${now}) > 0`;
        break;
      }
      case 'performed_event_regularly': {
        const span = filter.window!;
        const threshold = this.params.add(filter.operatorValue, 'UInt64');
        const periods: string[] = [];
        for (let period = 0; period < filter.totalPeriods; period += 1) {
          const upTo = this.at(before(this.now, span, period));
          const after = this.at(before(this.now, span, period + 1));
          periods.push(`(countIf(${matches} AND ${ts} > ${after} AND ${ts} <= ${upTo}) ${filter.countOperator} ${threshold})`);
        }
        this.needsFrom(before(this.now, span, filter.totalPeriods));
        expression = `(${periods.join(' + ')}) >= ${this.params.add(filter.minPeriods, 'UInt64')}`;
        break;
      }
      case 'performed_event_sequence': {
        const start = this.windowStart(filter);
        this.needsFrom(start);
        const inWindow = `${ts} > ${this.at(start)} AND ${ts} < ${now}`;
        const followUps = await this.match(filter, filter.seqEntity!);
        const seq = filter.seqWindow!;
        const within = `${ADD_FUNCTION[seq.interval]}(step_a, ${this.params.add(seq.value, 'UInt32')})`;
        expression =
          `arrayExists(step_a -> arrayExists(step_b -> step_b > step_a AND step_b <= ${within}, ` +
          `groupArrayIf(${ts}, ${followUps} AND ${inWindow})), groupArrayIf(${ts}, ${matches} AND ${inWindow}))`;
        break;
      }
    }
    const column = `behaviour_${this.columns.length}`;
    this.columns.push(`(${expression}) AS ${column}`);
    // Persons without any scanned event have no behaviour row; they hold when "zero events" satisfies the filter.
    return holdsWithoutEvents(filter) ? `(behaviour.${column} OR behaviour.behaviour_seen = 0)` : `behaviour.${column}`;
  }

  /** `LEFT JOIN (…) AS behaviour`: persons without matching events get 0 in every column. */
  joinClause(personId: string): string {
    const actor = this.source.personId;
    const conditions = ['e.team_id = {team_id:Int64}', `e.timestamp <= ${this.at(this.now)}`];
    if (!this.unbounded && this.earliest !== null) conditions.push(`e.timestamp > ${this.at(this.earliest)}`);
    conditions.push(`(${this.matches.map((match) => `(${match})`).join(' OR ')})`);
    return `LEFT JOIN (
      SELECT ${actor} AS behaviour_actor, 1 AS behaviour_seen, ${this.columns.join(', ')}
      ${this.source.fromClause()}
      WHERE ${conditions.join(' AND ')}
      GROUP BY behaviour_actor
    ) AS behaviour ON behaviour.behaviour_actor = ${personId}`;
  }
}
