// A read the watcher makes for every file of a drop (a name's mapping row, the same
// contents in its project, a folder's project), built and compiled by Kysely once and
// then run with each call's values: building and compiling such a query cost more
// than running it (the profile of a 1,000-file drop, issue 30). Reads only: a write
// goes through Kysely's plugins every time (the store's write generations count it),
// which a query compiled beforehand would skip.
import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../engine/store/tables.ts';

/**
 * `build` makes the query from its values (as many as the function declares); it is
 * called once, with a stand-in for each, and the compiled SQL is kept with where each
 * value goes. The SQL is the dialect's of `db`, so one is made per store.
 */
export function compiledRead<Args extends Array<string | number>, Row>(db: Kysely<Database>, build: (...args: Args) => Compilable<Row>): (...args: Args) => Promise<Row[]> {
  let compiled: { sql: string; slots: Array<{ arg: number } | { value: unknown }> } | null = null;
  const compile = () => {
    const standIns = Array.from({ length: build.length }, (_, arg) => Object.freeze({ standInFor: arg }));
    const query = build(...(standIns as unknown as Args)).compile();
    const slots = query.parameters.map((value) => {
      const arg = standIns.indexOf(value as (typeof standIns)[number]);
      return arg === -1 ? { value } : { arg };
    });
    for (let arg = 0; arg < standIns.length; arg++) {
      if (!slots.some((slot) => 'arg' in slot && slot.arg === arg)) throw new Error(`compiledRead: value ${arg} is not a parameter of ${query.sql}`);
    }
    return { sql: query.sql, slots };
  };
  return async (...args) => {
    compiled ??= compile();
    const parameters = compiled.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value));
    return (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters))).rows;
  };
}
