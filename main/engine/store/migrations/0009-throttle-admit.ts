// Issue 18: on PostgreSQL a throttle admission is one statement, `select * from
// throttle_admit(...)`, instead of a transaction of four round trips around
// advisory locks (docs/throttles.md). The function runs inside that statement's own
// transaction: it first creates-or-locks one anchor row per scope (bucket_start -1,
// hits 0) in key order, so admissions to the same scope from any process queue
// there and never deadlock; every later statement in the function reads with a
// fresh snapshot, so the slices it sums include every admission committed before
// the lock was granted. Then it counts the request in every scope, or in none.
// A single CTE could not do this: its reads would all use the snapshot taken
// before it waited for the lock, and miss the admission it waited for.
// SQLite counts in memory (one process owns the file) and needs no function.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create function throttle_admit(keys text[], limits integer[], cutoffs bigint[], currents bigint[])
    returns table (admitted boolean, slice_key text, slice_start bigint, slice_hits bigint)
    language plpgsql as $$
    declare
      ok boolean;
    begin
      -- The anchors: created if missing, locked either way, in key order.
      insert into throttle_buckets (scope_key, bucket_start, hits)
        select k, -1, 0 from unnest(keys) as k order by k
        on conflict (scope_key, bucket_start) do update set hits = 0;
      select coalesce(bool_and(coalesce(used.total, 0) < s.lim), true) into ok
        from unnest(keys, limits, cutoffs) as s(key, lim, cutoff)
        left join lateral (
          select sum(b.hits) as total from throttle_buckets b where b.scope_key = s.key and b.bucket_start >= s.cutoff and b.bucket_start >= 0
        ) used on true;
      -- The slices in each window as they were before this request, oldest first.
      return query
        select ok, b.scope_key, b.bucket_start::bigint, b.hits::bigint
        from throttle_buckets b join unnest(keys, cutoffs) as s(key, cutoff) on b.scope_key = s.key
        where b.bucket_start >= s.cutoff and b.bucket_start >= 0 and b.hits > 0
        order by b.bucket_start;
      if ok then
        insert into throttle_buckets (scope_key, bucket_start, hits)
          select k, c, 1 from unnest(keys, currents) as s(k, c)
          on conflict (scope_key, bucket_start) do update set hits = throttle_buckets.hits + 1;
      end if;
      -- Always one last row, so the caller learns the verdict even when no slice had hits.
      return query select ok, null::text, null::bigint, null::bigint;
    end
    $$
  `.execute(db);
}
