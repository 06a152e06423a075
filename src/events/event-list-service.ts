import { NotFound, ValidationError } from '../errors.js';
import type { SqlResolvers } from '../query/resolvers.js';
import { isUuid } from '../persons/person-id.js';
import type { PersonRepository } from '../persons/person-repository.js';
import type { Project } from '../projects/project.js';
import type { EventCursor } from './event-cursor.js';
import type { EventListQuery } from './event-list-query.js';
import { buildEventScope, type EventScope } from './event-list-scope.js';
import { personsOfDistinctIds, type EventPerson } from './event-persons.js';
import type { EventKey, EventRepository, StoredEvent } from './event-repository.js';
import { newestFirstWindows, oldestFirstWindows, type TimeWindow } from './event-time-windows.js';
import { msFromWarehouseTime } from './event-time.js';

/** Action ids are 32-bit serials on PostgreSQL; a larger one names no action. */
const MAX_ACTION_ID = 2_147_483_647;

export interface EventView {
  event: StoredEvent;
  /** Null unless the request asked for persons, or when the distinct id has no person. */
  person: EventPerson | null;
}

export interface EventPage {
  events: EventView[];
  /** Where the next page starts; null when this page holds the last matching event. */
  next: EventCursor | null;
}

const EMPTY_PAGE: EventPage = { events: [], next: null };

/**
 * The events list and single events: finds the page's keys window by window (newest first or
 * oldest first), then reads the page's events and, when asked, their persons.
 */
export class EventListService {
  constructor(
    private readonly events: EventRepository,
    private readonly persons: PersonRepository,
    private readonly resolvers: SqlResolvers,
  ) {}

  async list(project: Project, query: EventListQuery): Promise<EventPage> {
    const personDistinctIds = query.person ? await this.personDistinctIds(project, query) : null;
    if (personDistinctIds?.length === 0) return EMPTY_PAGE;
    if (query.actionId !== null && query.actionId > MAX_ACTION_ID) return EMPTY_PAGE;
    const scope = await buildEventScope({ teamId: project.id, query, personDistinctIds, resolvers: this.resolvers });
    if (!scope) return EMPTY_PAGE;

    const wanted = query.offset + query.limit + 1;
    const keys = await this.findKeys(project, query, scope, wanted);
    const pageKeys = keys.slice(query.offset, query.offset + query.limit);
    const stored = new Map((await this.events.byKeys(project.id, pageKeys)).map((event) => [event.uuid, event]));
    const pageEvents = pageKeys.flatMap((key) => stored.get(key.uuid) ?? []);
    const last = pageKeys[pageKeys.length - 1];
    return {
      events: await this.withPersons(project, pageEvents, query.includePerson),
      next: keys.length >= wanted && last ? { time: last.time, uuid: last.uuid } : null,
    };
  }

  async get(project: Project, id: string, includePerson: boolean): Promise<EventView> {
    if (!isUuid(id)) throw new ValidationError('id', 'Invalid UUID: an event id is the UUID of the event.', 'invalid');
    const event = await this.events.findByUuid(project.id, id.toLowerCase());
    if (!event) throw new NotFound();
    const [view] = await this.withPersons(project, [event], includePerson);
    return view!;
  }

  private async personDistinctIds(project: Project, query: EventListQuery): Promise<string[]> {
    const person = await this.persons.findByKey(project.id, query.person!);
    return person ? this.persons.distinctIdsOf(person.id) : [];
  }

  /** Up to `wanted` keys in list order, reading one window of time after another until enough. */
  private async findKeys(project: Project, query: EventListQuery, scope: EventScope, wanted: number): Promise<EventKey[]> {
    const windows = await this.windowsOf(project, query);
    const keys: EventKey[] = [];
    for (const window of windows) {
      keys.push(...(await this.events.keys(scope, window, wanted - keys.length)));
      if (keys.length >= wanted) break;
    }
    return keys;
  }

  private async windowsOf(project: Project, query: EventListQuery): Promise<TimeWindow[]> {
    const cursorMs = query.cursor ? msFromWarehouseTime(query.cursor.time) : null;
    if (query.newestFirst) {
      return newestFirstWindows(cursorMs === null ? query.before : Math.min(cursorMs + 1, query.before), query.after);
    }
    let start = Math.max(query.after ?? -Infinity, cursorMs ?? -Infinity);
    if (start === -Infinity) {
      const earliest = await this.events.earliestTime(project.id, query.before);
      if (earliest === null) return [];
      start = msFromWarehouseTime(earliest)!;
    }
    return oldestFirstWindows(start, query.before);
  }

  private async withPersons(project: Project, events: StoredEvent[], includePerson: boolean): Promise<EventView[]> {
    if (!includePerson) return events.map((event) => ({ event, person: null }));
    const persons = await personsOfDistinctIds(
      this.persons,
      project.id,
      events.map((event) => event.distinctId),
    );
    return events.map((event) => ({ event, person: persons.get(event.distinctId) ?? null }));
  }
}
