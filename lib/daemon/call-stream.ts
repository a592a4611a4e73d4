/**
 * The CLI's one round trip for a tool call: `POST /v1/call` with `stream: true` answers NDJSON, one
 * object a line — the call's own progress (`call.progress`), the upstream's log messages during it
 * (`call.log`) and questions (`call.input`, answered
 * as before by POST /v1/answer with the inputId) as they happen, then `{"type":"result"}` or
 * `{"type":"error"}` — so the CLI opens no event feed beside the call and waits for no drain.
 * With `inputSchemaHash` the CLI says which inputSchema it coerced `key=value` words against (a
 * copy it cached from an earlier catalog); a tool whose schema changed since is refused before
 * it runs (NOT_FOUND, data.staleSchema), and the CLI fetches the catalog and calls again.
 */
import { McpxError, asMcpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { Catalog, Pool } from './pool-contract.ts'
import type { DownstreamAsker } from '../gateway/index.ts'
import type { JsonObject } from '../wire/index.ts'

/** The path of the `call` operation (operations.ts), which the CLI's client posts to without loading the table. */
export const CALL_PATH = '/v1/call'

/** The line types of a streamed call, in the order they can come. */
export type CallStreamLine =
  | { readonly type: 'info'; readonly info: JsonObject }
  | { readonly type: 'call.progress'; readonly data: JsonObject }
  | { readonly type: 'call.log'; readonly data: JsonObject }
  | { readonly type: 'call.input'; readonly data: JsonObject }
  | { readonly type: 'result'; readonly result: unknown }
  | { readonly type: 'error'; readonly error: JsonObject }

/** A stable digest of one tool's inputSchema as both sides hold it (the JSON the catalog carries). */
export function inputSchemaHash(schema: unknown): string {
  return Bun.hash(JSON.stringify(schema ?? null)).toString(36)
}

/** Refuse the call when the CLI coerced its arguments against another version of the schema. */
export async function checkSchemaHash(
  pool: Pool,
  server: string,
  tool: string,
  hash: string,
  asker: DownstreamAsker | undefined,
): Promise<void> {
  const catalog: Catalog = await pool.catalog(server, asker ? { asker } : {})
  const definition = (catalog.tools as JsonObject[]).find((t) => t.name === tool)
  if (definition !== undefined && inputSchemaHash(definition.inputSchema) === hash) return
  throw new McpxError(
    'NOT_FOUND',
    `the tool "${tool}" of server "${server}" ${definition ? 'changed its inputSchema' : 'is gone'} since the CLI cached it`,
    { server, tool, staleSchema: true },
  )
}

const encoder = new TextEncoder()

/**
 * Run `call` and answer its lines as NDJSON. `send` may be called until `call` settles; the
 * result or error line ends the body. A client that went away aborts nothing here: the call's
 * own signal (the request's) does that.
 */
export function streamedCall(call: (send: (line: CallStreamLine) => void) => Promise<unknown>): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let open = true
  const send = (line: CallStreamLine) => {
    if (!open) return
    try {
      controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`))
    } catch {
      open = false
    }
  }
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
      call(send)
        .then(
          (result) => send({ type: 'result', result }),
          (error: unknown) => {
            const mcpxError = asMcpxError(error)
            if (mcpxError.code === 'INTERNAL') log.error(mcpxError.cause ?? mcpxError)
            send({ type: 'error', error: mcpxError.toJSON() as unknown as JsonObject })
          },
        )
        .finally(() => {
          if (!open) return
          open = false
          try {
            controller.close()
          } catch {
            // The reader cancelled.
          }
        })
    },
    cancel() {
      open = false
    },
  })
  return new Response(body, { headers: { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-cache' } })
}
