// Throttle quotas (service.md 8, compatibility.md "Throttles"): the engine enforces
// them, the sync scheduler paces itself by them, the renderer explains them.
// A rate is "N/unit"; a self-hoster overrides them with --throttle-config (same shape).

export type RateUnit = 'sec' | 'min' | 'hour' | 'day';
export type Rate = `${number}/${RateUnit}`;

/** Each action's quota per user and per org (null: no quota at that scope). Actions that share a `bucket` share one count. */
export interface ActionQuota {
  readonly user: Rate | null;
  readonly org: Rate | null;
  /** Actions with the same bucket are counted together (private files: reads and writes together). */
  readonly bucket?: string;
}

export const DEFAULT_THROTTLE_RATES = {
  project_create: { user: '10/min', org: '10000/day' },
  project_update: { user: '10/min', org: '10000/day' },
  project_partial_update: { user: '10/min', org: '10000/day' },
  project_detail: { user: '100/min', org: '10000/day' },
  system_details: { user: '60/min', org: '10000/day' },
  system_image: { user: '10/min', org: '10000/day' },
  // GET /api/user_logins/ (facts section 12, hosted docs: Throttle Limits); the org is the named projects' (the first's).
  proposal_data: { user: '100/min', org: '10000/day' },
  // Generated documents (issue 29): each renders a PDF or CSV, so fewer than reads; SolarDesk's own quota.
  generate_document: { user: '60/min', org: '5000/day' },
  connected_org_create: { user: '100/day', org: '100/day' },
  connected_org_partial_update: { user: '100/day', org: '100/day' },
  connected_org_list: { user: '100/day', org: '100/day' },
  // compatibility.md: 1000 an hour per user and 1000 a day per org, reads and writes together.
  private_file_create: { user: '1000/hour', org: '1000/day', bucket: 'private_files' },
  private_file_partial_update: { user: '1000/hour', org: '1000/day', bucket: 'private_files' },
  private_file_list: { user: '1000/hour', org: '1000/day', bucket: 'private_files' },
  private_file_detail: { user: '1000/hour', org: '1000/day', bucket: 'private_files' },
  private_file_delete: { user: '1000/hour', org: '1000/day', bucket: 'private_files' },
  private_file_download: { user: '1000/hour', org: '1000/day', bucket: 'private_files' },
  private_file_upload: { user: '1000/hour', org: '1000/day', bucket: 'private_files' },
  // SolarDesk's contents and versions extension (docs/files.md "Versions") counts in the same quota.
  private_file_contents_update: { user: '1000/hour', org: '1000/day', bucket: 'private_files' },
  private_file_versions: { user: '1000/hour', org: '1000/day', bucket: 'private_files' },
  // A person's schedule feed (docs/http-api.md "Schedule feed"): phones and calendar services poll it, every
  // 15 minutes at the most eager; counted per feed owner, whoever fetches it, so a leaked URL cannot be hammered.
  calendar_feed: { user: '60/hour', org: '10000/day' },
  // Every other endpoint still has a quota (service.md 8); these are SolarDesk's own.
  default: { user: '600/min', org: '200000/day' },
  // Routes without a signed-in user are counted per client address ("user" is the address here).
  sign_in: { user: '30/min', org: null },
  anonymous: { user: '600/min', org: null },
} as const satisfies Record<string, ActionQuota>;

export type ThrottleAction = keyof typeof DEFAULT_THROTTLE_RATES;
export type ThrottleRates = Record<ThrottleAction, ActionQuota>;

const SECONDS: Record<RateUnit, number> = { sec: 1, min: 60, hour: 3600, day: 86400 };

export function parseRate(rate: Rate): { limit: number; windowSeconds: number } {
  const [count, unit] = rate.split('/') as [string, RateUnit];
  return { limit: Number(count), windowSeconds: SECONDS[unit] };
}

export function isRate(value: unknown): value is Rate {
  return typeof value === 'string' && /^\d+\/(sec|min|hour|day)$/.test(value);
}

/**
 * The same quotas with every window shortened by `factor` (a factor of 60 turns
 * "10/min" into "10/sec"): for tests and benchmarks that must exercise the real
 * table in seconds rather than hours.
 */
export function scaleRates(rates: Record<string, ActionQuota>, factor: number): Record<string, ActionQuota> {
  const scale = (rate: Rate | null): Rate | null => {
    if (!rate) return rate;
    const { limit, windowSeconds } = parseRate(rate);
    const scaledWindow = windowSeconds / factor;
    const unit = (Object.entries(SECONDS) as Array<[RateUnit, number]>).find(([, length]) => length === scaledWindow)?.[0];
    if (unit) return `${limit}/${unit}`;
    // A window with no unit of its own (a day / 60 is 24 min) keeps its average rate, per minute or per second.
    return scaledWindow >= 60 ? `${Math.max(1, Math.round((limit * 60) / scaledWindow))}/min` : `${Math.max(1, Math.round(limit / scaledWindow))}/sec`;
  };
  return Object.fromEntries(Object.entries(rates).map(([action, quota]) => [action, { ...quota, user: scale(quota.user), org: scale(quota.org) }]));
}

/**
 * The share of each org-wide quota that one computer's background sync (polling,
 * sweeps, prefetch) may spend: 2 % of 1,000 private-file requests a day is 20.
 * Work a person waits for is not limited by it (docs/sync.md "Budget").
 */
export const DEFAULT_BACKGROUND_SHARE = 0.02;

/** One quota bucket: the actions counted together, and their per-user and per-org rates. */
export interface QuotaBucket {
  readonly key: string;
  readonly actions: readonly ThrottleAction[];
  readonly user: Rate | null;
  readonly org: Rate | null;
}

/** The buckets of a rate table: actions sharing a `bucket` are one, every other action is its own. */
export function quotaBuckets(rates: Record<string, ActionQuota>): QuotaBucket[] {
  const buckets = new Map<string, { key: string; actions: ThrottleAction[]; user: Rate | null; org: Rate | null }>();
  for (const [action, quota] of Object.entries(rates)) {
    const key = quota.bucket ?? action;
    const bucket = buckets.get(key) ?? { key, actions: [], user: quota.user, org: quota.org };
    bucket.actions.push(action as ThrottleAction);
    buckets.set(key, bucket);
  }
  return [...buckets.values()];
}

/** The bucket an action counts in. */
export function bucketOf(rates: Record<string, ActionQuota>, action: ThrottleAction): string {
  return rates[action]?.bucket ?? action;
}

/** A rate as requests per day (a "10/min" quota allows 14,400 a day). */
export function perDay(rate: Rate): number {
  const { limit, windowSeconds } = parseRate(rate);
  return (limit * SECONDS.day) / windowSeconds;
}

/** Buckets in people's words, for the sync screen (the key itself where none is given). */
export const BUCKET_LABELS: Record<string, string> = {
  private_files: 'Private files',
  project_detail: 'Project details',
  project_create: 'New projects',
  project_update: 'Project replacements',
  project_partial_update: 'Project edits',
  system_details: 'System details',
  system_image: 'System images',
  proposal_data: 'Proposal data',
  generate_document: 'Generated documents',
  connected_org_create: 'New connected orgs',
  connected_org_partial_update: 'Connected org edits',
  connected_org_list: 'Connected org lists',
  calendar_feed: 'Schedule feeds',
  default: 'Other requests (lists, contacts, roles, webhooks)',
};

/** A bucket in a sentence's words ("private files"; "requests" for one with no label). */
export function bucketInWords(bucket: string): string {
  return (BUCKET_LABELS[bucket] ?? 'requests').toLowerCase();
}
