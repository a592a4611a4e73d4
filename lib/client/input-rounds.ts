/**
 * The 2026 `input_required` loop of one request (2026-07-28 basic/patterns/mrtr.mdx): its own file
 * because it is the one place a single call becomes several requests, each round answered through
 * the same handlers as legacy server→client requests (input.ts).
 */
import { McpxError } from '../errors/index.ts'
import { RESULT_TYPE } from '../wire/index.ts'
import type { ClientHandlers, JsonObject } from './connect-options.ts'
import { answerInputRequests } from './input.ts'
import type { CallOptions } from './mcp-client.ts'

/** Methods whose result may be `input_required` (2026-07-28 basic/patterns/mrtr.mdx "Supported Requests"). */
const INPUT_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read'])

/** A result the caller gets as it is: complete, or a task the caller asked to keep (acceptTask). */
export function isFinal(result: JsonObject, options: CallOptions): boolean {
  const resultType = result.resultType ?? RESULT_TYPE.COMPLETE
  return resultType === RESULT_TYPE.COMPLETE || (resultType === RESULT_TYPE.TASK && options.acceptTask === true)
}

export interface InputRoundsContext {
  /** One request under the connection's era (McpClient.request). */
  readonly request: (method: string, params: JsonObject, options: CallOptions) => Promise<JsonObject>
  readonly handlers: ClientHandlers
  /** Setting maxInputRounds. */
  readonly maxInputRounds: number
}

/**
 * Answer `first` and every later `input_required` round through the handlers, each retried with a
 * NEW id, the server's `requestState` echoed byte for byte and never carried to any other call, at
 * most `maxInputRounds` times (mrtr.mdx "Client Requirements").
 */
export async function runInputRounds(
  context: InputRoundsContext,
  method: string,
  params: JsonObject,
  options: CallOptions,
  first: JsonObject,
): Promise<JsonObject> {
  let result = first
  for (let rounds = 0; ; rounds++) {
    if (isFinal(result, options)) return result
    const resultType = result.resultType
    if (resultType !== RESULT_TYPE.INPUT_REQUIRED || !INPUT_METHODS.has(method)) {
      throw new McpxError('PROTOCOL', `${method} returned resultType ${JSON.stringify(resultType)}, which mcpx did not ask for`, {
        method,
        resultType,
      })
    }
    if (rounds >= context.maxInputRounds) {
      throw new McpxError('PROTOCOL', `${method} still needs input after ${rounds} rounds (maxInputRounds)`, { method, rounds })
    }
    const inputResponses = await answerInputRequests(context.handlers, result.inputRequests, 'modern', options.signal)
    const round: JsonObject = { ...params }
    if (inputResponses !== undefined) round.inputResponses = inputResponses
    if (typeof result.requestState === 'string') round.requestState = result.requestState
    result = await context.request(method, round, options)
  }
}
