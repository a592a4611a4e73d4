/**
 * The questions an upstream may put to the host that made a call, and how they reach it: an asker
 * (broker.ts DownstreamAsker) has a member only for what the host declared, each putting the
 * question through the asker's own `ask` (the call's stream for a legacy host, an input_required
 * round for a 2026 one: brokered-call.ts). The members are shared functions reading `this`, so
 * giving a call its asker allocates no closure (the broker calls them on the asker).
 */
import type { JsonObject } from '../../client/index.ts'
import type { InputRequest } from '../../server/index.ts'
import { isRecord, missingCapability } from '../../wire/index.ts'
import { ASK_METHOD_OF, type DownstreamAsker, capabilityOfKind } from '../broker.ts'

/** What puts one question to the host; `key` is the upstream's inputRequests key (2026 upstreams), kept so the host sees it. */
export type Ask = (request: InputRequest, key?: string) => Promise<JsonObject>

/** An asker that puts its questions through `ask`. */
export interface Asking extends DownstreamAsker {
  ask: Ask
}

function elicit(this: Asking, params: JsonObject, _signal?: AbortSignal, key?: string): Promise<JsonObject> {
  return this.ask({ method: ASK_METHOD_OF.elicit, params }, key)
}

/**
 * 2025-11-25 client/elicitation.mdx "Capabilities": URL mode only to a client that declared
 * `elicitation.url` (an empty `elicitation` is form only); mcpx declares it upstream for all.
 */
function elicitFormOnly(this: Asking, params: JsonObject, _signal?: AbortSignal, key?: string): Promise<JsonObject> {
  if (params.mode !== 'url') return this.ask({ method: ASK_METHOD_OF.elicit, params }, key)
  return Promise.reject(
    missingCapability(
      { elicitation: { url: {} } },
      'the upstream asked for URL-mode elicitation, but the host that made the call declared form mode only',
    ),
  )
}

function sample(this: Asking, params: JsonObject, _signal?: AbortSignal, key?: string): Promise<JsonObject> {
  return this.ask({ method: ASK_METHOD_OF.sample, params }, key)
}

function listRoots(this: Asking, params: JsonObject, _signal?: AbortSignal, key?: string): Promise<JsonObject> {
  return this.ask({ method: ASK_METHOD_OF.listRoots, params }, key)
}

/** Give `asker` a member for each kind of question the host declared (`capabilities`) it can answer. */
export function declareAsks<T extends Asking>(asker: T, capabilities: JsonObject): T {
  if (capabilityOfKind('elicit') in capabilities) asker.elicit = declaresUrlElicitation(capabilities) ? elicit : elicitFormOnly
  if (capabilityOfKind('sample') in capabilities) asker.sample = sample
  if (capabilityOfKind('listRoots') in capabilities) asker.listRoots = listRoots
  return asker
}

/** An asker of what the host declared, putting each question through `ask`; `host`: its session (DownstreamAsker.host). */
export function askerFor(capabilities: JsonObject, ask: Ask, host?: object): DownstreamAsker {
  return declareAsks((host === undefined ? { ask } : { ask, host }) as Asking, capabilities)
}

function declaresUrlElicitation(capabilities: JsonObject): boolean {
  const declared = capabilities.elicitation
  return isRecord(declared) && 'url' in declared
}
