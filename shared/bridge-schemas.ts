// The bridge's request schemas, built from the one definition of every channel
// (`invokeChannels` in shared/bridge.ts) with zod: main/bridge-dispatch.ts checks
// every request against them before a handler runs, whichever transport brought it.
import { z } from 'zod';
import { type InvokeChannel, invokeChannels } from './bridge.ts';
import { requestSchemaParts } from './bridge-request-parts.ts';

const parts = requestSchemaParts(z);

type RequestSchemas = { [C in InvokeChannel]: ReturnType<(typeof invokeChannels)[C]['request']> };

export const bridgeRequestSchemas = Object.fromEntries(
  Object.entries(invokeChannels).map(([channel, definition]) => [channel, definition.request(parts)]),
) as RequestSchemas;
