// The demo orgs' fixed ids and their users' emails (demo-seed.ts makes them).
export const DEMO_USERS = {
  sunriseAdmin: 'admin@sunrise.example',
  sunriseMember: 'member@sunrise.example',
  sunriseViewer: 'viewer@sunrise.example',
  basicAdmin: 'admin@basic.example',
  lapsedAdmin: 'admin@lapsed.example',
} as const;

export const DEMO_ORGS = { sunrise: 1, basic: 2, lapsed: 3 } as const;
