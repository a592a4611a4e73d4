/** lib/gateway/call-arguments.ts: `mcpx call` arguments parsed and checked against a tool's schema. */
import { describe, expect, test } from 'bun:test'
import { checkArguments, parseCallArguments } from '../../../lib/gateway/index.ts'

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
  ])('%j → %j', (tokens, expected) => {
    expect(parseCallArguments(tokens, schema, { readFile })).toEqual(expected)
  })

  test.each([
    [['count=three'], /argument "count" must be integer, got "three"/],
    [['txet=hi'], /unknown argument "txet" \(did you mean text\?\)/],
    [['novalue'], /not key=value/],
    [['{broken'], /not valid JSON/],
  ])('%j fails naming the field', (tokens, message) => {
    expect(() => parseCallArguments(tokens, schema, { readFile })).toThrow(message)
  })

  test('keys outside the schema are kept when additional properties are allowed', () => {
    expect(parseCallArguments(['n=5', 's=hello'], { type: 'object' }, { readFile })).toEqual({ n: 5, s: 'hello' })
  })
})

describe('checkArguments', () => {
  test('missing required fields and wrong types are named', () => {
    expect(() => checkArguments({}, schema)).toThrow(/missing required argument: text/)
    expect(() => checkArguments({ text: 1 }, schema)).toThrow(/argument "text" must be string/)
    expect(() => checkArguments({ text: 'ok', count: 2 }, schema)).not.toThrow()
  })
})
