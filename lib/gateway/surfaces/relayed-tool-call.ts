/**
 * A host's plain call of an upstream tool relayed as it is (lib/server/relay.ts): what the tool's
 * handler does through brokeredCall and the pool, done by one object on the call's way. It is the
 * broker's scope while the call runs upstream (broker.ts enter/leave): the host's asker, declared
 * from the host's capabilities (host-asks.ts), and the host's log sink, both reaching the host
 * through the call's handler context, built only when the upstream first asks or logs. It takes
 * the upstream's outcome and finishes it as the handler's way does: an unknown tool is named (the
 * pool's catalog check after an error or an isError result), the upstream's envelope fields are
 * dropped (relayResult), and its errors carry their HTTP status for a legacy host (withStatus).
 */
import type { JsonObject } from '../../client/index.ts'
import type { McpxError } from '../../errors/index.ts'
import type { InputRequest, RelayedCall } from '../../server/index.ts'
import type { CallOutcome, UpstreamPool } from '../upstream-pool.ts'
import type { RelayReceiver } from '../upstream-relay.ts'
import { askLegacyHost, logTo, withStatus } from './brokered-call.ts'
import { type Asking, declareAsks } from './host-asks.ts'
import { relayResult } from './upstream-result.ts'

export class RelayedToolCall implements RelayReceiver, Asking {
  #asked = 0
  readonly host: object

  constructor(
    private readonly pool: UpstreamPool,
    private readonly server: string,
    private readonly tool: string,
    private readonly call: RelayedCall,
  ) {
    this.host = call.session
    declareAsks(this, call.clientCapabilities)
  }

  /** Send the call to its upstream: false, with nothing sent, when the pool cannot relay it now. */
  send(args: JsonObject): boolean {
    const stop = this.pool.relay(this.server, this.tool, args, this)
    if (stop === undefined) return false
    this.call.stop = stop
    return true
  }

  /** A question of the upstream's, to this call's legacy host (host-asks.ts puts each through here). */
  ask(request: InputRequest): Promise<JsonObject> {
    return askLegacyHost(this.call.context(), request, ++this.#asked)
  }

  log(params: JsonObject): void {
    logTo(this.call.context(), params)
  }

  answered(result: JsonObject): void {
    if (result.isError !== true) this.call.resolve(relayResult(result))
    else this.#checked({ result })
  }

  failed(error: McpxError): void {
    this.#checked({ error })
  }

  /** Many servers answer an unknown tool with an isError result rather than -32602: the pool's catalog says which. */
  #checked(outcome: CallOutcome): void {
    this.pool.relayedOutcome(this.server, this.tool, outcome).then(
      (result) => this.call.resolve(relayResult(result)),
      (error: unknown) => this.call.reject(withStatus(error, 'legacy')),
    )
  }
}
