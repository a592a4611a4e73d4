/**
 * The HTTP requests of the OAuth flow (metadata, registration, token): one deadline per request
 * from settings, JSON bodies validated with valibot, failures as McpxError AUTH/CONNECT/TIMEOUT.
 * Redirects are never followed for POSTs (OAuth 2.1 section 1.6: no credentials across redirects).
 */
import * as v from 'valibot'
import { McpxError } from '../errors/index.ts'
import { OAuthErrorSchema } from './schemas.ts'

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

export interface HttpContext {
  fetch: FetchLike
  timeoutMs: number
}

/** fetch with the context's deadline; network failures become CONNECT, deadline TIMEOUT. */
export async function request(ctx: HttpContext, url: string, init: RequestInit = {}): Promise<Response> {
  const signal = ctx.timeoutMs > 0 ? AbortSignal.timeout(ctx.timeoutMs) : undefined
  try {
    return await ctx.fetch(url, { ...init, signal, redirect: init.method === 'POST' ? 'manual' : 'follow' })
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') {
      throw new McpxError('TIMEOUT', `OAuth request to ${url} took longer than ${ctx.timeoutMs} ms`, { url }, { cause: error })
    }
    throw new McpxError('CONNECT', `OAuth request to ${url} failed: ${(error as Error).message}`, { url }, { cause: error })
  }
}

/** Parse a JSON body against a schema; a bad body is AUTH (the peer broke the OAuth contract). */
export async function readJson<S extends v.GenericSchema>(response: Response, schema: S, what: string): Promise<v.InferOutput<S>> {
  let body: unknown
  try {
    body = await response.json()
  } catch (error) {
    throw new McpxError('AUTH', `${what} from ${response.url || 'the server'} is not JSON`, { status: response.status }, { cause: error })
  }
  const parsed = v.safeParse(schema, body)
  if (!parsed.success) {
    const issue = parsed.issues[0]
    const path = issue?.path?.map((p) => String(p.key)).join('.') ?? ''
    throw new McpxError('AUTH', `${what} is malformed${path ? ` at ${path}` : ''}: ${issue?.message ?? 'invalid'}`, {
      status: response.status,
    })
  }
  return parsed.output
}

/** Turn a non-2xx OAuth endpoint response into an AUTH error carrying the OAuth `error` code. */
export async function oauthFailure(response: Response, what: string): Promise<McpxError> {
  let error: string | undefined
  let description: string | undefined
  try {
    const parsed = v.safeParse(OAuthErrorSchema, await response.json())
    if (parsed.success) {
      error = parsed.output.error
      description = parsed.output.error_description
    }
  } catch {
    // not a JSON error body; the status says enough
  }
  const detail = error ? `${error}${description ? `: ${description}` : ''}` : `HTTP ${response.status}`
  return new McpxError('AUTH', `${what} failed (${detail})`, { status: response.status, ...(error ? { oauthError: error } : {}) })
}
