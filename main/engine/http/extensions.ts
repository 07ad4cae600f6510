// Routes SolarDesk serves that the hosted service does not (docs/http-api.md
// "Extensions"): the OpenAPI document files them under one tag and says so first
// in their description, so a client written against the hosted service knows not
// to rely on them there.
export const SOLARDESK_EXTENSION_TAG = 'SolarDesk extensions';

export const extensionDescription = (text: string): string =>
  `**SolarDesk extension**: not part of the hosted service, which answers 404 here. ${text}`;
