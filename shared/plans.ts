// API access plans (service.md 5): which plan an org has decides whether it may use
// the API at all and whether design data is returned.

export const API_PLANS = {
  api_access: { title: 'API Access', includesDesignData: false },
  raw_data_api_access: { title: 'Raw Data API Access', includesDesignData: true },
} as const;

export type ApiPlan = keyof typeof API_PLANS;
export const API_PLAN_NAMES = Object.keys(API_PLANS) as ApiPlan[];
export const FREE_TRIAL_DAYS = 30;
/** How long a plan change may take to reach a running server (service.md 8). */
export const PLAN_CHANGE_DELAY_SECONDS = 5 * 60;

export function isApiPlan(value: string): value is ApiPlan {
  return value in API_PLANS;
}
