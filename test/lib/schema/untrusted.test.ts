/**
 * Tool input/output validation against untrusted upstream JSON Schemas: 2020-12 and draft-07,
 * precise error paths, pass-through (never failure) when a schema cannot be used, no remote refs,
 * and the ReDoS guards (unsafe patterns dropped, long strings skip pattern checks).
 */
import { describe, expect, test } from 'bun:test'
import { createSchemaValidator } from '../../../lib/schema/index.ts'
import { testSettings } from '../../harness.ts'

const validator = createSchemaValidator(testSettings())

const LIST_PRS = {
  inputSchema: {
    type: 'object',
    properties: {
      owner: { type: 'string' },
      repo: { type: 'string' },
      per_page: { type: 'integer', minimum: 1 },
      since: { type: 'string', format: 'date-time' },
      labels: { type: 'array', items: { type: 'string' } },
    },
    required: ['owner', 'repo'],
    additionalProperties: false,
  },
}

describe('validateInput', () => {
  test('valid arguments pass; integers may be written 1.0', () => {
    expect(validator.validateInput(LIST_PRS, { owner: 'o', repo: 'r', per_page: 1.0, labels: ['bug'] })).toEqual({ ok: true })
  })

  test('every problem is reported with a JSON Pointer path', () => {
    const result = validator.validateInput(LIST_PRS, { owner: 'o', per_page: 0, since: 'yesterday', labels: ['a', 2], extra: true })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.errors.map((e) => e.path).sort()).toEqual(['', '/extra', '/labels/1', '/per_page', '/since'])
    expect(result.errors.find((e) => e.path === '')?.message).toContain('repo')
    expect(result.errors.find((e) => e.path === '/extra')?.message).toBe('unexpected property "extra"')
  })

  test('2020-12: prefixItems, dependentRequired, unevaluatedProperties', () => {
    const tool = {
      inputSchema: {
        type: 'object',
        properties: {
          point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }] },
          card: { type: 'string' },
          zip: { type: 'string' },
        },
        dependentRequired: { card: ['zip'] },
        unevaluatedProperties: false,
      },
    }
    expect(validator.validateInput(tool, { point: [1, 'a'] })).toEqual({ ok: true })
    expect(validator.validateInput(tool, { point: ['a', 'a'] }).ok).toBe(false)
    expect(validator.validateInput(tool, { card: '4111' }).ok).toBe(false)
    expect(validator.validateInput(tool, { other: 1 }).ok).toBe(false)
  })

  test('draft-07: definitions and array-form items', () => {
    const tool = {
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        definitions: { id: { type: 'string', minLength: 2 } },
        type: 'object',
        properties: { pair: { type: 'array', items: [{ $ref: '#/definitions/id' }, { type: 'number' }], additionalItems: false } },
      },
    }
    expect(validator.validateInput(tool, { pair: ['ab', 1] })).toEqual({ ok: true })
    const bad = validator.validateInput(tool, { pair: ['a', 1, 2] })
    expect(bad.ok).toBe(false)
  })
})

describe('pass-through and caps', () => {
  test('no schema, and no outputSchema, pass through', () => {
    expect(validator.validateInput({}, { anything: 1 })).toEqual({ ok: true, skipped: 'no-schema' })
    expect(validator.validateOutput({}, { anything: 1 })).toEqual({ ok: true, skipped: 'no-schema' })
  })

  test('outputs are validated when the tool has an outputSchema', () => {
    const tool = { outputSchema: { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'] } }
    expect(validator.validateOutput(tool, { total: 3 })).toEqual({ ok: true })
    expect(validator.validateOutput(tool, { total: 'three' })).toEqual({
      ok: false,
      errors: [{ path: '/total', message: expect.any(String) }],
    })
  })

  test('refs to URLs and files are never resolved: the schema passes through, nothing is fetched', async () => {
    let hits = 0
    await using server = Bun.serve({ port: 0, fetch: () => (hits++, Response.json({ type: 'string' })) })
    const remote = { inputSchema: { type: 'object', properties: { a: { $ref: `http://127.0.0.1:${server.port}/s.json` } } } }
    const file = { inputSchema: { $ref: 'file:///etc/passwd' } }
    expect(validator.validateInput(remote, { a: 1 })).toEqual({ ok: true, skipped: 'invalid-schema' })
    expect(validator.validateInput(file, 1)).toEqual({ ok: true, skipped: 'invalid-schema' })
    expect(hits).toBe(0)
  })

  test('schemas over the size or depth cap pass through', () => {
    const small = createSchemaValidator(testSettings({ schemaMaxBytes: 200, schemaMaxDepth: 5 }))
    const big = { inputSchema: { type: 'object', description: 'x'.repeat(500), required: ['a'] } }
    expect(small.validateInput(big, {})).toEqual({ ok: true, skipped: 'too-large' })
    const shallow = createSchemaValidator(testSettings({ schemaMaxDepth: 5 }))
    let deep: unknown = { type: 'string' }
    for (let i = 0; i < 10; i++) deep = { type: 'object', properties: { a: deep } }
    expect(shallow.validateInput({ inputSchema: deep }, { a: 1 })).toEqual({ ok: true, skipped: 'too-deep' })
  })

  test('a malformed schema passes through instead of breaking its tool', () => {
    expect(validator.validateInput({ inputSchema: 'not a schema' }, {})).toEqual({ ok: true, skipped: 'invalid-schema' })
  })

  test('a `type` naming no JSON type (as servers write "int" or "any") passes through instead of refusing every value', () => {
    for (const type of ['int', 'any', 5, [], ['string', 'float']]) {
      const inputSchema = { type: 'object', properties: { x: { anyOf: [{ type }] } } }
      expect(validator.validateInput({ inputSchema }, { x: 1 })).toEqual({ ok: true, skipped: 'invalid-schema' })
    }
    expect(validator.validateOutput({ outputSchema: { type: 'dict' } }, { a: 1 })).toEqual({ ok: true, skipped: 'invalid-schema' })
  })

  test('a property called "type", and data holding a "type" key, are not read as the keyword', () => {
    const inputSchema = {
      type: 'object',
      properties: { type: { type: 'string' }, n: { type: 'integer', default: { type: 'weird' }, enum: [1, 2] } },
      $defs: { unused: { const: { type: 'also data' } } },
    }
    expect(validator.validateInput({ inputSchema }, { type: 'x', n: 1 })).toEqual({ ok: true })
    expect(validator.validateInput({ inputSchema }, { type: 1, n: 1 }).ok).toBe(false)
  })
})

describe('ReDoS guards', () => {
  test('patterns with nested quantifiers are dropped; safe patterns still apply', () => {
    const tool = {
      inputSchema: {
        type: 'object',
        properties: { evil: { type: 'string', pattern: '^(a+)+$' }, code: { type: 'string', pattern: '^[0-9]{6}$' } },
      },
    }
    expect(validator.validateInput(tool, { evil: `${'a'.repeat(40)}!` })).toEqual({ ok: true })
    expect(validator.validateInput(tool, { code: '12345' }).ok).toBe(false)
    expect(validator.validateInput(tool, { code: '123456' })).toEqual({ ok: true })
  })

  test('strings longer than the cap skip pattern checks (other keywords still apply)', () => {
    const capped = createSchemaValidator(testSettings({ schemaMaxValidatedStringLength: 10 }))
    const tool = { inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^x+$', maxLength: 30 } } } }
    expect(capped.validateInput(tool, { s: 'y'.repeat(20) })).toEqual({ ok: true })
    expect(capped.validateInput(tool, { s: 'y'.repeat(5) }).ok).toBe(false)
    expect(capped.validateInput(tool, { s: 'y'.repeat(40) }).ok).toBe(false)
  })
})
