/**
 * Turns the /v1 operation table into routes: gathers parameters (path segments, query string for
 * GET, JSON object body for POST), validates them against the operation's spec, runs the handler,
 * and answers JSON — `{"error":{"code","message","data"}}` with a status chosen from the code.
 */
import type { ErrorCode } from '../errors/index.ts'
import { McpxError, asMcpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { Operation, OperationContext, ParamSpec } from './operation-contract.ts'
import type { Route } from './routes.ts'
import { readBody } from '../server/index.ts'
import type { Settings } from '../settings/index.ts'
import { HTTP_STATUS } from '../wire/index.ts'

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  USAGE: HTTP_STATUS.BAD_REQUEST,
  CONFIG: HTTP_STATUS.BAD_REQUEST,
  NOT_FOUND: HTTP_STATUS.NOT_FOUND,
  AUTH: HTTP_STATUS.FORBIDDEN,
  CONNECT: HTTP_STATUS.BAD_GATEWAY,
  PEER: HTTP_STATUS.BAD_GATEWAY,
  PROTOCOL: HTTP_STATUS.BAD_GATEWAY,
  ERA: HTTP_STATUS.BAD_GATEWAY,
  TIMEOUT: HTTP_STATUS.GATEWAY_TIMEOUT,
  CANCELLED: HTTP_STATUS.CLIENT_CLOSED_REQUEST,
  TOOL: HTTP_STATUS.UNPROCESSABLE_CONTENT,
  SANDBOX: HTTP_STATUS.UNPROCESSABLE_CONTENT,
  INTERNAL: HTTP_STATUS.INTERNAL_SERVER_ERROR,
}

export function jsonResponse(body: unknown, status: number = HTTP_STATUS.OK, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } })
}

/** The HTTP status that answers an McpxError of `code` (the /v1 API's, and /mcp's refusals before any JSON-RPC). */
export function httpStatusOf(code: ErrorCode): number {
  return STATUS_BY_CODE[code] ?? HTTP_STATUS.INTERNAL_SERVER_ERROR
}

export function errorResponse(error: unknown): Response {
  const mcpxError = asMcpxError(error)
  if (mcpxError.code === 'INTERNAL') log.error(mcpxError.cause ?? mcpxError)
  return jsonResponse({ error: mcpxError.toJSON() }, httpStatusOf(mcpxError.code))
}

export type ContextFactory = (request: Request) => OperationContext

export function operationRoutes(operations: readonly Operation[], contextFor: ContextFactory): Route[] {
  return operations.map((operation) => ({
    methods: [operation.method],
    path: operation.path,
    async handle(request, route) {
      try {
        const raw: Record<string, unknown> = { ...route.params }
        const context = contextFor(request)
        if (operation.method === 'GET') {
          for (const [key, value] of route.url.searchParams) if (!(key in raw)) raw[key] = value
        } else {
          Object.assign(raw, await readJsonObject(request, context.settings), route.params)
        }
        const params = validateParams(operation, raw)
        const result = await operation.handler(params, context)
        return result instanceof Response ? result : jsonResponse(result ?? null)
      } catch (error) {
        return errorResponse(error)
      }
    },
  }))
}

async function readJsonObject(
  request: Request,
  settings: Pick<Settings, 'maxFrameBytes' | 'httpBodyTimeoutMs'>,
): Promise<Record<string, unknown>> {
  const read = await readBody(request, { maxFrameBytes: settings.maxFrameBytes, bodyTimeoutMs: settings.httpBodyTimeoutMs })
  if (!read.ok)
    throw new McpxError(
      'USAGE',
      `request body refused: ${((await read.response.json()) as { error: { message: string } }).error.message}`,
      { status: read.response.status },
    )
  const text = new TextDecoder().decode(read.value)
  if (text.trim() === '') return {}
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new McpxError('USAGE', 'request body is not valid JSON')
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new McpxError('USAGE', 'request body must be a JSON object')
  return body as Record<string, unknown>
}

/** Check and coerce parameters; query-string values arrive as text. */
export function validateParams(operation: Operation, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(raw)) {
    if (!(key in operation.params))
      throw new McpxError('USAGE', `${operation.name}: unknown parameter "${key}"`, { operation: operation.name, param: key })
  }
  for (const [name, spec] of Object.entries(operation.params)) {
    const value = raw[name]
    if (value === undefined) {
      if (spec.required)
        throw new McpxError('USAGE', `${operation.name}: parameter "${name}" is required`, { operation: operation.name, param: name })
      continue
    }
    out[name] = coerce(operation.name, name, spec, value)
  }
  return out
}

function coerce(operation: string, name: string, spec: ParamSpec, value: unknown): unknown {
  const fail = () =>
    new McpxError(
      'USAGE',
      `${operation}: parameter "${name}" must be ${spec.type === 'object' ? 'a JSON object' : `${/^[aeiou]/.test(spec.type) ? 'an' : 'a'} ${spec.type}`}`,
      {
        operation,
        param: name,
      },
    )
  switch (spec.type) {
    case 'string':
      if (typeof value !== 'string') throw fail()
      if (spec.oneOf !== undefined && !spec.oneOf.includes(value))
        throw new McpxError('USAGE', `${operation}: parameter "${name}" must be one of ${spec.oneOf.join(', ')}, got "${value}"`, {
          operation,
          param: name,
        })
      return value
    case 'integer': {
      const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw fail()
      return n
    }
    case 'boolean':
      if (value === 'true' || value === true) return true
      if (value === 'false' || value === false) return false
      throw fail()
    case 'object':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail()
      return value
  }
}
