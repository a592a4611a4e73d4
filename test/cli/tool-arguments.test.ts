/** cli/tool-arguments.ts: `mcpx call` arguments parsed and pre-checked against a tool's schema. */
import { describe, expect, test } from 'bun:test'
import { parseCallArguments, precheckArguments, undeclaredArguments } from '../../cli/tool-arguments.ts'

const schema = {
  type: 'object',
  properties: {
    text: { type: 'string' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    loud: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    options: { type: 'object' },
    either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    entities: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } } } },
    maybe: { type: ['array', 'null'], items: { type: 'string' } },
  },
  required: ['text'],
  additionalProperties: false,
}
const files: Record<string, string> = { 'note.txt': 'from a file', 'data.json': '["a","b"]' }
const readFile = (path: string) => {
  if (!(path in files)) throw new Error(`no file ${path}`)
  return files[path]!
}

describe('parseCallArguments', () => {
  test.each([
    [['text=007'], { text: '007' }],
    [['text=true', 'count=3', 'ratio=0.5', 'loud=false'], { text: 'true', count: 3, ratio: 0.5, loud: false }],
    [['text=a=b'], { text: 'a=b' }],
    [['text=@note.txt'], { text: 'from a file' }],
    [['text=@@handle'], { text: '@handle' }],
    [['tags=@data.json', 'text=x'], { tags: ['a', 'b'], text: 'x' }],
    [['options={"k":1}', 'text=x'], { options: { k: 1 }, text: 'x' }],
    [['{"text":"json","count":2}'], { text: 'json', count: 2 }],
    [['either=12', 'text=x'], { either: 12, text: 'x' }],
    [['either=twelve', 'text=x'], { either: 'twelve', text: 'x' }],
    // A single value for an array parameter is a one-element array; repeating the key accumulates.
    [['tags=solo', 'text=x'], { tags: ['solo'], text: 'x' }],
    [['tags=a', 'tags=b', 'text=x'], { tags: ['a', 'b'], text: 'x' }],
    [['tags=["a"]', 'tags=b', 'text=x'], { tags: ['a', 'b'], text: 'x' }],
    // A nullable array: `null` is null, anything else an element.
    [['maybe=null', 'text=x'], { maybe: null, text: 'x' }],
    [['maybe=a', 'maybe=null', 'text=x'], { maybe: ['a', 'null'], text: 'x' }],
    // Dotted keys build nested objects and arrays, typed by the nested schema.
    [['options.k=1', 'options.j.deep=true', 'text=x'], { options: { k: 1, j: { deep: true } }, text: 'x' }],
    [['entities.0.name=x', 'entities.0.n=2', 'entities.1.name=y', 'text=x'], { entities: [{ name: 'x', n: 2 }, { name: 'y' }], text: 'x' }],
  ])('%j → %j', (tokens, expected) => {
    expect(parseCallArguments(tokens, schema, { readFile })).toEqual(expected)
  })

  test.each([
    [['count=three'], /argument "count" must be integer, got "three"/],
    [['txet=hi'], /unknown argument "txet" \(did you mean text\?\)/],
    [['novalue'], /not key=value/],
    [['{broken'], /not valid JSON/],
    [['text=a', 'text=b'], /argument "text" given more than once/],
    [['text.inner=a'], /argument "text" is string, so "text.inner" cannot set a field inside it/],
    [['nope.inner=a'], /unknown argument "nope"/],
    [['entities.0.n=two'], /argument "entities.0.n" must be integer/],
  ])('%j fails naming the field', (tokens, message) => {
    expect(() => parseCallArguments(tokens, schema, { readFile })).toThrow(message)
  })

  test('keys outside the schema are kept when additional properties are allowed', () => {
    expect(parseCallArguments(['n=5', 's=hello'], { type: 'object' }, { readFile })).toEqual({ n: 5, s: 'hello' })
  })
})

describe('precheckArguments', () => {
  test('missing required fields and wrong types are named', () => {
    expect(() => precheckArguments({}, schema)).toThrow(/missing required argument: text/)
    expect(() => precheckArguments({ text: 1 }, schema)).toThrow(/argument "text" must be string/)
    expect(() => precheckArguments({ text: 'ok', count: 2 }, schema)).not.toThrow()
  })
})

describe('undeclaredArguments', () => {
  test.each([
    [{ text: 'x', txet: 1 }, { properties: { text: {} } }, ['txet']],
    [{ text: 'x' }, { properties: { text: {} } }, []],
    // A schema that declares nothing has nothing to misspell.
    [{ anything: 1 }, { type: 'object' }, []],
    [{ anything: 1 }, { type: 'object', properties: {} }, []],
    [{ a: 1 }, undefined, []],
  ])('%j against %j → %j', (args, inputSchema, expected) => {
    expect(undeclaredArguments(args, inputSchema)).toEqual(expected)
  })
})

describe('a schema whose `type` names no JSON type', () => {
  const sloppy = { type: 'object', properties: { n: { type: 'int' }, s: { type: ['string', 'any'] } }, required: ['n'] }
  test('its values are read as undeclared ones: not refused, nothing coerced by the bad name', () => {
    expect(parseCallArguments(['n=3', 's=007'], sloppy)).toEqual({ n: 3, s: '007' })
    expect(() => precheckArguments({ n: 3, s: '007' }, sloppy)).not.toThrow()
    // Still checked: what the schema does say (n is required).
    expect(() => precheckArguments({ s: 'x' }, sloppy)).toThrow('missing required argument: n')
  })
})
