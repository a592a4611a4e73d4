/**
 * Run one upstream request on behalf of the downstream request being handled, with questions the
 * upstream asks mid-call put to that host in ITS era: a legacy host gets a real server→client
 * request on its call's stream; a 2026 host gets input_required rounds over a parked call
 * (parking.ts). A host that did not declare a capability is never asked (the broker declines).
 */
import type { JsonObject } from '../../client/index.ts'
import type { HandlerContext, InputRequest, Json } from '../../server/index.ts'
import type { DownstreamAsker } from '../broker.ts'
import type { ParkingLot } from './parking.ts'

type Run = (asker: DownstreamAsker, signal: AbortSignal) => Promise<JsonObject>

const METHOD_OF = { elicit: 'elicitation/create', sample: 'sampling/createMessage', listRoots: 'roots/list' } as const
const CAPABILITY_OF = { elicit: 'elicitation', sample: 'sampling', listRoots: 'roots' } as const

/** An asker whose members exist only for what the host declared, each delegating to `ask`. */
function askerFor(ctx: HandlerContext, ask: (request: InputRequest) => Promise<Json>): DownstreamAsker {
  const asker: DownstreamAsker = {}
  for (const kind of ['elicit', 'sample', 'listRoots'] as const) {
    if (CAPABILITY_OF[kind] in ctx.clientCapabilities) asker[kind] = (params: JsonObject) => ask({ method: METHOD_OF[kind], params })
  }
  return asker
}

interface ParkState {
  park: string
}

export async function brokeredCall(ctx: HandlerContext, lot: ParkingLot, run: Run): Promise<Json> {
  if (ctx.era === 'legacy') {
    let asked = 0
    const ask = async (request: InputRequest) => {
      const key = `upstream-${++asked}`
      return (await ctx.ask({ [key]: request }))[key]!
    }
    return run(askerFor(ctx, ask), ctx.signal)
  }
  const prior = ctx.state<ParkState>()
  const call = prior ? lot.get(prior.park) : lot.create()
  if (!prior) call.start((ask, signal) => run(askerFor(ctx, ask), signal))
  ctx.setState({ park: call.id } satisfies ParkState)
  const onAbort = () => call.abort.abort(ctx.signal.reason)
  ctx.signal.addEventListener('abort', onAbort, { once: true })
  try {
    for (;;) {
      const event = await call.next()
      if (event.kind === 'done') {
        lot.release(call)
        return event.result
      }
      if (event.kind === 'error') {
        lot.release(call)
        throw event.error
      }
      const { question } = event
      // Answered in this or an earlier round → resume the upstream; else this throws InputRequired
      // and the round ends with the question in `inputRequests` (the slot stays parked).
      const answers = await ctx.ask({ [question.key]: question.request }).catch((error) => {
        call.park()
        throw error
      })
      question.answer(answers[question.key]!)
    }
  } finally {
    ctx.signal.removeEventListener('abort', onAbort)
  }
}
