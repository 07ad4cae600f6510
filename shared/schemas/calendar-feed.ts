// A person's schedule feed (SolarDesk extension, docs/http-api.md "Schedule feed"):
// what /api/orgs/<org>/calendar_feed/ answers. The feed's URL holds its secret, and
// only the secret's hash is stored, so the URL is in the answer that makes it and
// in no other: GET says whether a feed exists, not where.
import { z } from 'zod';

export const calendarFeedJsonSchema = z.object({
  exists: z.boolean().describe('whether this person has a working feed URL in this org'),
  created_date: z.string().nullable().describe('when the current URL was made; null when there is none'),
  url: z.string().nullable().describe('the feed URL to subscribe to: only in the answer to the POST that made it, null otherwise'),
});

export type CalendarFeedJson = z.infer<typeof calendarFeedJsonSchema>;
