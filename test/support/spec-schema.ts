/**
 * Validate a value against one definition of a revision's official schema.json
 * (../shared/spec/<rev>/schema/schema.json, beside the repo in CI). Draft-07 up to 2025-06-18,
 * 2020-12 from 2025-11-25 (each file's `$schema`). `strict` additionally rejects fields a
 * definition does not declare, which is how we prove that shaping dropped what a revision lacks.
 */
import Ajv, { type ValidateFunction } from 'ajv'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Revision } from '../../lib/wire/index.ts'

export const SPEC_ROOT = fileURLToPath(new URL('../../../shared/spec/', import.meta.url))

type Json = Record<string, unknown>
const rawSchemas = new Map<Revision, Json>()
const validators = new Map<string, ValidateFunction>()
const ajvs = new Map<string, Ajv>()

/** The parsed schema.json of `revision`. */
export function specSchema(revision: Revision): Json {
  let schema = rawSchemas.get(revision)
  if (schema === undefined) {
    schema = JSON.parse(readFileSync(`${SPEC_ROOT}${revision}/schema/schema.json`, 'utf8')) as Json
    rawSchemas.set(revision, schema)
  }
  return schema
}

/** `definitions` (draft-07) or `$defs` (2020-12) of `revision`'s schema. */
export function specDefinitions(revision: Revision): Record<string, Json> {
  const schema = specSchema(revision)
  return (schema.$defs ?? schema.definitions) as Record<string, Json>
}

export interface ValidateOptions {
  /** Reject undeclared fields on closed spec objects (see closedCopy). */
  strict?: boolean
}

/** Errors of `value` against `definitionName` of `revision`'s schema; empty means valid. */
export function validateSpec(revision: Revision, definitionName: string, value: unknown, options: ValidateOptions = {}): string[] {
  const defs = specDefinitions(revision)
  if (!(definitionName in defs)) return [`${revision} schema has no definition ${definitionName}`]
  const validate = validatorFor(revision, definitionName, options.strict === true)
  if (validate(value)) return []
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || '/'} ${e.message ?? 'invalid'}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`,
  )
}

function validatorFor(revision: Revision, definitionName: string, strict: boolean): ValidateFunction {
  const key = `${revision}|${strict}|${definitionName}`
  let validate = validators.get(key)
  if (validate !== undefined) return validate
  const ajvKey = `${revision}|${strict}`
  let ajv = ajvs.get(ajvKey)
  const schemaId = `mcp-${revision}${strict ? '-strict' : ''}`
  if (ajv === undefined) {
    const modern = revision >= '2025-11-25'
    ajv = modern ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true })
    addFormats(ajv)
    const schema = strict ? closedCopy(specSchema(revision)) : specSchema(revision)
    const { $id: _id, ...rest } = schema
    ajv.addSchema({ ...rest, $id: schemaId })
    ajvs.set(ajvKey, ajv)
  }
  const defsKey = 'definitions' in specSchema(revision) ? 'definitions' : '$defs'
  validate = ajv.getSchema(`${schemaId}#/${defsKey}/${definitionName}`)
  if (validate === undefined) throw new Error(`cannot compile ${definitionName} of ${revision}`)
  validators.set(key, validate)
  return validate
}

/**
 * A copy of the schema where every object definition that declares `properties` and says nothing
 * about `additionalProperties` becomes closed. Left open: definitions the spec calls open sets
 * (capabilities, `_meta` objects), bases that only exist to be composed with `allOf`, and the
 * JSON-RPC envelopes.
 */
function closedCopy(schema: Json): Json {
  const copy = structuredClone(schema)
  const defs = (copy.$defs ?? copy.definitions) as Record<string, Json>
  const composed = new Set<string>()
  for (const def of Object.values(defs)) collectAllOfRefs(def, composed)
  for (const [name, def] of Object.entries(defs)) {
    if (composed.has(name) || OPEN_DEFINITIONS.test(name)) continue
    if (def.type === 'object' && typeof def.properties === 'object' && !('additionalProperties' in def)) def.additionalProperties = false
  }
  return copy
}

const OPEN_DEFINITIONS = /Capabilities$|MetaObject$|^JSONRPC|^(Request|Notification|Result|RequestParams|NotificationParams)$/

function collectAllOfRefs(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) return void node.forEach((n) => collectAllOfRefs(n, into))
  if (typeof node !== 'object' || node === null) return
  const obj = node as Json
  if (Array.isArray(obj.allOf)) {
    for (const part of obj.allOf as Json[]) if (typeof part.$ref === 'string') into.add(part.$ref.split('/').pop() as string)
  }
  for (const value of Object.values(obj)) collectAllOfRefs(value, into)
}
