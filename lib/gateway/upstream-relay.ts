/**
 * A host's call relayed on its upstream as it is (Upstream.relay): the object that is the call there
 * for as long as it runs. It holds the upstream request's id (the host's cancel stops it by that id),
 * keeps the call in the broker (broker.ts enter/leave: the host's asker and log sink, which the
 * receiver is) until the answer, checks structured output as every call's is checked, and hands the
 * outcome to the receiver (a surface's relayed tool call, surfaces/relayed-tool-call.ts).
 */
import type { JsonObject, McpClient } from '../client/index.ts'
import { type McpxError, asMcpxError } from '../errors/index.ts'
import type { AnswerReceiver } from '../session/index.ts'
import type { RequestId } from '../wire/index.ts'
import type { Broker, RelayScope } from './broker.ts'

/** What takes a relayed call's outcome from its upstream (a surface's relayed tool call), and is the broker's scope for it meanwhile. */
export interface RelayReceiver extends AnswerReceiver, RelayScope {}

/** How a relayed call is stopped once sent: the host cancelled it, or the server is stopping. */
export interface RelayStop {
  cancel(reason: unknown): void
}

/** One relayed call on its upstream: its id there, the broker's scope until it ends, its output checked. */
export class UpstreamRelay implements AnswerReceiver, RelayStop {
  id: RequestId = 0

  constructor(
    private readonly broker: Broker,
    private readonly client: McpClient,
    private readonly definition: JsonObject,
    private readonly receiver: RelayReceiver,
    private readonly checkOutput: (definition: JsonObject, result: JsonObject) => void,
  ) {}

  answered(result: JsonObject): void {
    this.broker.leave(this.receiver)
    try {
      this.checkOutput(this.definition, result)
    } catch (error) {
      return this.receiver.failed(asMcpxError(error))
    }
    this.receiver.answered(result)
  }

  failed(error: McpxError): void {
    this.broker.leave(this.receiver)
    this.receiver.failed(error)
  }

  cancel(reason: unknown): void {
    this.client.peer.cancel(this.id, reason)
  }
}
