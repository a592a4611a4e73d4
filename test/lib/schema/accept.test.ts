/**
 * lib/schema/accept.ts: the fast accept-check may only say "valid" where the full
 * validator (@cfworker/json-schema) says so too, and for the plain schemas it compiles it must
 * agree with it exactly (or it would never be the path taken). Checked over a value corpus per
 * schema; schemas outside its keywords must not compile.
 */
import { describe, expect, test } from 'bun:test'
import { Validator } from '@cfworker/json-schema'
import { compileAccept } from '../../../lib/schema/index.ts'

const PLAIN_SCHEMAS: Record<string, object> = {
  'typed properties, required, closed': {
    type: 'object',
    properties: {
      owner: { type: 'string', minLength: 1, maxLength: 5 },
      count: { type: 'integer', minimum: 1, maximum: 10 },
      ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    },
    required: ['owner'],
    additionalProperties: false,
  },
  'arrays and enums': {
    type: 'object',
    properties: {
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2 },
      mode: { enum: ['x', 1, null, true] },
      fixed: { const: 'k' },
    },
    additionalProperties: { type: 'boolean' },
  },
  'type unions and annotations': {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 't',
    description: 'd',
    type: 'object',
    properties: {
      maybe: { type: ['string', 'null'], default: null, examples: ['e'] },
      nested: { type: 'object', properties: { deep: { type: 'boolean' } }, required: ['deep'] },
    },
  },
  'true and empty': { type: 'object', properties: { anything: true, empty: {} } },
}

const VALUES: unknown[] = [
  {},
  { owner: 'ab' },
  { owner: '' },
  { owner: 'abcdef' },
  { owner: '😀😀😀😀😀' },
  { owner: '😀😀😀😀😀😀' },
  { owner: 'a', count: 1 },
  { owner: 'a', count: 0 },
  { owner: 'a', count: 10.5 },
  { owner: 'a', count: 11 },
  { owner: 'a', ratio: 0 },
  { owner: 'a', ratio: 0.5 },
  { owner: 'a', ratio: 1 },
  { owner: 'a', extra: 1 },
  { owner: 5 },
  { tags: ['a'] },
  { tags: [] },
  { tags: ['a', 'b', 'c'] },
  { tags: ['z'] },
  { tags: 'a' },
  { mode: 'x' },
  { mode: 1 },
  { mode: null },
  { mode: true },
  { mode: false },
  { mode: 'y' },
  { fixed: 'k' },
  { fixed: 'j' },
  { other: true },
  { other: 'no' },
  { maybe: null },
  { maybe: 's' },
  { maybe: 3 },
  { nested: { deep: true } },
  { nested: {} },
  { nested: { deep: 'yes' } },
  { nested: [] },
  { anything: [1, { a: 2 }] },
  { empty: null },
  [],
  'text',
  3,
  null,
  true,
]

describe('compileAccept', () => {
  for (const [name, schema] of Object.entries(PLAIN_SCHEMAS)) {
    test(`${name}: compiles, and agrees with the full validator on every value`, () => {
      const accept = compileAccept(schema)
      expect(accept).toBeDefined()
      const full = new Validator(schema, '2020-12', false)
      for (const value of VALUES) {
        expect({ value, accepted: accept!(value) }).toEqual({ value, accepted: full.validate(value).valid })
      }
    })
  }

  test('schemas beyond its keywords do not compile (the full validator alone decides)', () => {
    const beyond = [
      { type: 'string', pattern: '^a' },
      { type: 'string', format: 'email' },
      { anyOf: [{ type: 'string' }, { type: 'number' }] },
      { $ref: '#/$defs/x', $defs: { x: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'number', multipleOf: 0.1 } } },
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      { type: 'array', items: [{ type: 'string' }] },
      { type: 'array', uniqueItems: true },
      { type: 'number', exclusiveMinimum: true, minimum: 0 },
      { enum: [{ a: 1 }] },
      { type: 'object', properties: { a: false } },
      { type: 'whatever' },
      { type: 'object', unevaluatedProperties: false },
      false,
      'string',
    ]
    for (const schema of beyond) expect({ schema, compiled: compileAccept(schema) !== undefined }).toEqual({ schema, compiled: false })
  })
})
