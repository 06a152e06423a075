import type { QueryParams } from '../storage/warehouse/warehouse.js';

/**
 * Collects the bound parameters of one warehouse query. Every user value reaches SQL as a
 * `{p_N:Type}` placeholder produced here; SQL text never contains a user string.
 */
export class SqlParams {
  private readonly values: QueryParams = {};
  private counter = 0;

  constructor(named: QueryParams = {}) {
    Object.assign(this.values, named);
  }

  /** Binds `value` and returns its placeholder, e.g. `{p_3:String}`. */
  add(value: unknown, type: string): string {
    const name = `p_${this.counter++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }

  /** Binds a named parameter shared by several fragments (`{team_id:Int64}`). */
  named(name: string, value: unknown, type: string): string {
    this.values[name] = value;
    return `{${name}:${type}}`;
  }

  /** A copy that binds a query's own parameters after these, leaving these as they are. */
  copy(): SqlParams {
    const copy = new SqlParams(this.values);
    copy.counter = this.counter;
    return copy;
  }

  get all(): QueryParams {
    return { ...this.values };
  }
}
