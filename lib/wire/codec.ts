/**
 * codecFor(revision): the wire room's per-revision operations bound to one peer's revision, so a
 * connection or session holds one object instead of threading the revision through every call.
 */
import type { RpcError } from '../errors/index.ts'
import { eraOf, type Era, type Revision } from './constants.ts'
import { requestHeaders, type HeaderTool } from './header-params.ts'
import { methodExists, type Direction } from './matrix/methods.ts'
import { parseParams } from './params/parse.ts'
import { methodNotFound, resourceNotFound } from './rpc-errors.ts'
import { shapeClientRequest } from './shape/client-request.ts'
import { shapeNotification, type OutgoingNotification, type Shaped } from './shape/notification.ts'
import { shapeRequest, type OutgoingRequest } from './shape/request.ts'
import { shapeResult } from './shape/result.ts'
import { upgradeResult } from './shape/upgrade.ts'

type Obj = Record<string, unknown>

export interface RevisionCodec {
  readonly revision: Revision
  readonly era: Era
  methodExists(method: string, direction?: Direction): boolean
  parseParams(method: string, params: unknown): Obj
  shapeResult(method: string, result: Obj): Obj
  shapeNotification<T extends OutgoingNotification>(notification: T): Shaped<T> | null
  shapeRequest(request: OutgoingRequest): OutgoingRequest
  shapeClientRequest(request: OutgoingRequest): OutgoingRequest
  upgradeResult(method: string, result: Obj): Obj
  requestHeaders(method: string, params?: Obj, tool?: HeaderTool): Record<string, string>
  resourceNotFound(uri: string): RpcError
  methodNotFound(method: string): RpcError
}

const codecs = new Map<Revision, RevisionCodec>()

/** The (cached, immutable) codec of `revision`. */
export function codecFor(revision: Revision): RevisionCodec {
  let codec = codecs.get(revision)
  if (codec === undefined) {
    codec = Object.freeze({
      revision,
      era: eraOf(revision),
      methodExists: (method: string, direction?: Direction) => methodExists(revision, method, direction, { extensions: true }),
      parseParams: (method: string, params: unknown) => parseParams(revision, method, params),
      shapeResult: (method: string, result: Obj) => shapeResult(revision, method, result),
      shapeNotification: <T extends OutgoingNotification>(notification: T) => shapeNotification(revision, notification),
      shapeRequest: (request: OutgoingRequest) => shapeRequest(revision, request),
      shapeClientRequest: (request: OutgoingRequest) => shapeClientRequest(revision, request),
      upgradeResult: (method: string, result: Obj) => upgradeResult(revision, method, result),
      requestHeaders: (method: string, params?: Obj, tool?: HeaderTool) => requestHeaders(revision, method, params, tool),
      resourceNotFound: (uri: string) => resourceNotFound(revision, uri),
      methodNotFound: (method: string) => methodNotFound(method, revision),
    })
    codecs.set(revision, codec)
  }
  return codec
}
