/**
 * valibot building blocks shared by the incoming-params schemas. Objects are loose: the spec lets
 * peers extend any object (schema/schema.json: Result and its kin allow additional properties), so unknown fields are kept,
 * while required fields and the types of known fields are enforced.
 */
import * as v from 'valibot'
import { LOG_LEVELS, META } from '../constants.ts'

export const RequestIdSchema = v.union([v.string(), v.pipe(v.number(), v.integer())])
export const ProgressTokenSchema = v.union([v.string(), v.number()])
export const LogLevelSchema = v.picklist(LOG_LEVELS)
export const CursorSchema = v.string()
export const OpenObjectSchema = v.record(v.string(), v.unknown())

/** `Implementation` (clientInfo / serverInfo): name and version required (all revisions). */
export const ImplementationSchema = v.looseObject({
  name: v.string(),
  version: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  websiteUrl: v.optional(v.string()),
  icons: v.optional(v.array(OpenObjectSchema)),
})
export type Implementation = v.InferOutput<typeof ImplementationSchema>

/** `ClientCapabilities` is an open set (schema description); only known members are typed. */
export const ClientCapabilitiesSchema = v.looseObject({
  experimental: v.optional(OpenObjectSchema),
  roots: v.optional(v.looseObject({ listChanged: v.optional(v.boolean()) })),
  sampling: v.optional(OpenObjectSchema),
  elicitation: v.optional(OpenObjectSchema),
  tasks: v.optional(OpenObjectSchema),
  extensions: v.optional(v.record(v.string(), OpenObjectSchema)),
})
export type ClientCapabilities = v.InferOutput<typeof ClientCapabilitiesSchema>

/**
 * 2026-07-28 RequestMetaObject (basic/index.mdx "Request metadata"): protocolVersion and
 * clientCapabilities are REQUIRED on every request; clientInfo and logLevel are optional.
 */
export const ModernRequestMetaSchema = v.looseObject({
  [META.PROTOCOL_VERSION]: v.string(),
  [META.CLIENT_CAPABILITIES]: ClientCapabilitiesSchema,
  [META.CLIENT_INFO]: v.optional(ImplementationSchema),
  [META.LOG_LEVEL]: v.optional(LogLevelSchema),
  [META.PROGRESS_TOKEN]: v.optional(ProgressTokenSchema),
})
export type ModernRequestMeta = v.InferOutput<typeof ModernRequestMetaSchema>

/** `_meta` on any request: open, with the optional progress token (basic/utilities/progress.mdx). */
const RequestMetaSchema = v.looseObject({ [META.PROGRESS_TOKEN]: v.optional(ProgressTokenSchema) })

/** Base fields of every request's params; the 2026 required keys are checked separately (parse.ts). */
export const baseParams = { _meta: v.optional(RequestMetaSchema) }

/** 2026 MRTR retry fields (basic/patterns/mrtr.mdx): echoed state and keyed input responses. */
export const mrtrParams = {
  inputResponses: v.optional(v.record(v.string(), v.unknown())),
  requestState: v.optional(v.string()),
}

/** 2025-11-25 task augmentation (basic/utilities/tasks.mdx): `task: {ttl?}`. */
export const TaskMetadataSchema = v.looseObject({ ttl: v.optional(v.nullable(v.number())) })
