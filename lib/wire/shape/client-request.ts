/**
 * Client-to-server requests spelled down to the upstream's revision (the client direction of
 * shaping): 2026-only retry fields and `_meta` keys go for legacy upstreams, `task` exists only in
 * 2025-11-25, `completion/complete` context only from 2025-06-18, and `initialize` capabilities and
 * clientInfo are projected onto the upstream's fields (T<rev> ClientCapabilities, Implementation).
 */
import { McpxError } from '../../errors/index.ts'
import { atLeast, isModernRevision, META, type Revision } from '../constants.ts'
import { methodExists } from '../matrix/methods.ts'
import { shapeClientCapabilities, shapeImplementation } from './entities.ts'
import { shapeMeta } from './meta.ts'
import { isRecord } from '../jsonrpc.ts'
import type { OutgoingRequest } from './request.ts'

const MRTR_METHODS = ['tools/call', 'resources/read', 'prompts/get']

/** Shape a request mcpx (as a client) sends to an upstream speaking `revision`. Throws ERA if the method is absent. */
export function shapeClientRequest(revision: Revision, request: OutgoingRequest): OutgoingRequest {
  if (!methodExists(revision, request.method, 'client-to-server', { extensions: true })) {
    throw new McpxError('ERA', `${request.method} cannot be sent to a ${revision} server`)
  }
  if (request.params === undefined) return { ...request }
  const params: Record<string, unknown> = { ...request.params }
  if (!isModernRevision(revision)) {
    const meta = shapeMeta(revision, params._meta)
    if (meta === undefined) delete params._meta
    else params._meta = meta
  } else if (isRecord(params._meta) && META.CLIENT_CAPABILITIES in params._meta) {
    // Per-request capabilities use the 2026 ClientCapabilities (no `tasks`, `roots: {}`).
    params._meta = {
      ...params._meta,
      [META.CLIENT_CAPABILITIES]: shapeClientCapabilities(revision, params._meta[META.CLIENT_CAPABILITIES]),
    }
  }
  // basic/patterns/mrtr.mdx: inputResponses/requestState exist only in 2026 retries.
  if (!isModernRevision(revision) && MRTR_METHODS.includes(request.method)) {
    delete params.inputResponses
    delete params.requestState
  }
  // 2025-11-25 task augmentation; the 2026 extension MUST ignore `task` (SEP-2663 "Migration").
  if (revision !== '2025-11-25') delete params.task
  switch (request.method) {
    case 'initialize':
      if ('capabilities' in params) params.capabilities = shapeClientCapabilities(revision, params.capabilities)
      if ('clientInfo' in params) params.clientInfo = shapeImplementation(revision, params.clientInfo)
      break
    case 'completion/complete':
      // CompleteRequest.params.context arrived in 2025-06-18 (changelog).
      if (!atLeast(revision, '2025-06-18')) delete params.context
      break
  }
  return { ...request, params }
}
