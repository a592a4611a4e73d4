/**
 * The JSON Schema keywords whose values are subschemas, in the dialects MCP's revisions name
 * (2020-12 and draft-07): one schema, a list of schemas, or a map of names to schemas. `items` is
 * in the first two (draft-07 writes a tuple as a list of them); `properties` is left to callers,
 * which each treat it apart.
 */
export const SUBSCHEMA_ONE = [
  'items',
  'additionalProperties',
  'additionalItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const
export const SUBSCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const
export const SUBSCHEMA_MAP = ['patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'] as const
