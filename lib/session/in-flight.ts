/**
 * What a request gets when its connection ends before its answer: an error saying whether it may
 * have run (never a re-send, unless it is a read whose repetition changes nothing), which callers
 * tell apart from the peer's own refusals.
 */
import { McpxError } from '../errors/index.ts'
import { HANDSHAKE_METHODS } from '../wire/index.ts'

/** Methods a relay may send again after a lost connection: reads whose repetition changes nothing. */
const RESENDABLE = new Set(['ping', 'resources/read', 'prompts/get', 'completion/complete', 'server/discover'])

export function resendable(method: string): boolean {
  return RESENDABLE.has(method) || method.endsWith('/list')
}

/** The error of a request whose connection ended before its answer came. */
export function lostInFlight(method: string, reason: McpxError): McpxError {
  const outcome = resendable(method) ? 'was not answered' : 'may or may not have run; it was not re-sent'
  return new McpxError(
    reason.code,
    // A handshake has no outcome to doubt: the server went away before it could serve at all.
    HANDSHAKE_METHODS.has(method)
      ? `${method} got no answer: ${reason.message}`
      : `the connection ended while ${method} was in flight: it ${outcome} (${reason.message})`,
    { ...reason.data, method, inFlight: true },
    { cause: reason },
  )
}

/** True for the error of a request whose connection ended while it was in flight (lostInFlight). */
export function isLostInFlight(error: unknown): boolean {
  return error instanceof McpxError && error.data?.inFlight === true
}
