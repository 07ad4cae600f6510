// The one place a bridge request is checked and handed to its handler, whichever
// transport brought it (Electron IPC or HTTP). A request that breaks the contract
// of shared/bridge.ts is refused here, before any handler sees it.
import { type BridgeEnvelope, BridgeError, type BridgeHandlers, isInvokeChannel } from '../shared/bridge.ts';
import { bridgeRequestSchemas } from '../shared/bridge-schemas.ts';

export type ErrorLogger = (channel: string, error: unknown) => void;

/** Validates and runs one invoke; never throws, so transports only forward the envelope. */
export async function dispatchInvoke(
  handlers: BridgeHandlers,
  channel: unknown,
  rawRequest: unknown,
  logError: ErrorLogger = () => {},
): Promise<BridgeEnvelope<unknown>> {
  if (!isInvokeChannel(channel)) {
    return { ok: false, error: { code: 'unknown_channel', message: `There is no bridge channel "${String(channel)}".` } };
  }
  const parsed = bridgeRequestSchemas[channel].safeParse(rawRequest);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`);
    return { ok: false, error: { code: 'invalid_request', message: `Invalid ${channel} request. ${problems.join('; ')}` } };
  }
  try {
    const handler = handlers[channel] as (request: unknown) => Promise<unknown>;
    return { ok: true, response: await handler(parsed.data) };
  } catch (error) {
    if (error instanceof BridgeError) return { ok: false, error: error.toPayload() };
    logError(channel, error);
    // Internals (paths, stack traces) stay in the main process's log.
    return { ok: false, error: { code: 'failed', message: `SolarDesk could not complete ${channel}. The details are in its log.` } };
  }
}
