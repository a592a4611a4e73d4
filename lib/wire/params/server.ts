/**
 * Params of the server-to-client requests a client receives: sampling/createMessage, roots/list,
 * elicitation/create (legacy JSON-RPC requests; in 2026 the same objects arrive as MRTR
 * `inputRequests` entries). Content and schema details stay loose; the discriminators are checked.
 */
import * as v from 'valibot'
import { baseParams, OpenObjectSchema } from './common.ts'

const ContentBlockSchema = v.looseObject({ type: v.string() })
const SamplingMessageSchema = v.looseObject({
  role: v.picklist(['user', 'assistant']),
  // One block before 2025-11-25; a block or an array of blocks since (SEP-1577).
  content: v.union([ContentBlockSchema, v.array(ContentBlockSchema)]),
})

export const CreateMessageParamsSchema = v.looseObject({
  ...baseParams,
  messages: v.array(SamplingMessageSchema),
  maxTokens: v.number(),
  systemPrompt: v.optional(v.string()),
  includeContext: v.optional(v.picklist(['none', 'thisServer', 'allServers'])),
  temperature: v.optional(v.number()),
  stopSequences: v.optional(v.array(v.string())),
  metadata: v.optional(OpenObjectSchema),
  modelPreferences: v.optional(OpenObjectSchema),
  tools: v.optional(v.array(v.looseObject({ name: v.string(), inputSchema: OpenObjectSchema }))),
  toolChoice: v.optional(v.looseObject({ mode: v.optional(v.picklist(['auto', 'required', 'none'])) })),
})
export type CreateMessageParams = v.InferOutput<typeof CreateMessageParamsSchema>

const RequestedSchemaSchema = v.looseObject({
  type: v.literal('object'),
  properties: v.record(v.string(), v.looseObject({ type: v.string() })),
  required: v.optional(v.array(v.string())),
})

/** Form mode: `mode` absent (2025-06-18, or omitted later) or "form". */
export const ElicitFormParamsSchema = v.looseObject({
  ...baseParams,
  mode: v.optional(v.literal('form')),
  message: v.string(),
  requestedSchema: RequestedSchemaSchema,
})
/** URL mode (2025-11-25+); `elicitationId` is required only in 2025-11-25 (removed in 2026). */
export const ElicitUrlParamsSchema = v.looseObject({
  ...baseParams,
  mode: v.literal('url'),
  message: v.string(),
  url: v.string(),
  elicitationId: v.optional(v.string()),
})
export const ElicitUrlParams20251125Schema = v.looseObject({ ...ElicitUrlParamsSchema.entries, elicitationId: v.string() })
export type ElicitParams = v.InferOutput<typeof ElicitFormParamsSchema> | v.InferOutput<typeof ElicitUrlParamsSchema>
