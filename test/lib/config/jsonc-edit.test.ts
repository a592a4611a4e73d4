/** lib/config/jsonc-edit.ts: one member of a JSON(C) document set or removed as text, the rest kept byte for byte. */
import { describe, expect, test } from 'bun:test'
import { parseJsonc } from '../../../lib/config/jsonc.ts'
import { removeMember, setMember } from '../../../lib/config/jsonc-edit.ts'

const ENTRY = { command: 'mcpx', args: ['serve'] }
const read = (text: string) => parseJsonc(text, 'test.json') as Record<string, unknown>

describe('setMember', () => {
  test('adds after the last member, after its line comment, in the file comma style and indentation', () => {
    const withTrailing = '{\n  // mine\n  "servers": {\n    "a": { "command": "a" }, // first\n  },\n}\n'
    expect(setMember(withTrailing, ['servers', 'mcpx'], ENTRY)).toBe(
      '{\n  // mine\n  "servers": {\n    "a": { "command": "a" }, // first\n    "mcpx": {\n      "command": "mcpx",\n      "args": [\n        "serve"\n      ]\n    },\n  },\n}\n',
    )
    const fourSpaces = '{\n    "mcpServers": {\n        "a": {} // keep\n    }\n}\n'
    expect(setMember(fourSpaces, ['mcpServers', 'mcpx'], 1)).toBe(
      '{\n    "mcpServers": {\n        "a": {}, // keep\n        "mcpx": 1\n    }\n}\n',
    )
  })

  test('replaces an existing value in place, the last of repeated keys as JSON.parse reads them', () => {
    const text = '{\n  "s": {\n    "mcpx": 1,\n    "b": 2,\n    "mcpx": 3 /* last */\n  }\n}'
    const edited = setMember(text, ['s', 'mcpx'], { x: true })!
    expect(edited).toBe('{\n  "s": {\n    "mcpx": 1,\n    "b": 2,\n    "mcpx": {\n      "x": true\n    } /* last */\n  }\n}')
    expect(read(edited)).toEqual({ s: { mcpx: { x: true }, b: 2 } })
  })

  test('creates missing objects on the way, into empty objects (keeping what was inside them) and one-line ones', () => {
    expect(read(setMember('{\n  "theme": "dark"\n}\n', ['mcp', 'servers', 'mcpx'], ENTRY)!)).toEqual({
      theme: 'dark',
      mcp: { servers: { mcpx: ENTRY } },
    })
    expect(setMember('{ "theme": "dark" }', ['mcp', 'mcpx'], ENTRY)).toBe(
      '{ "theme": "dark", "mcp": {"mcpx":{"command":"mcpx","args":["serve"]}} }',
    )
    expect(setMember('{\n  "servers": {}\n}\n', ['servers', 'mcpx'], 1)).toBe('{\n  "servers": {\n    "mcpx": 1\n  }\n}\n')
    expect(setMember('{\n  "servers": { // none yet\n  }\n}\n', ['servers', 'mcpx'], 1)).toBe(
      '{\n  "servers": {\n    "mcpx": 1 // none yet\n  }\n}\n',
    )
  })

  test('strings holding braces, slashes and escaped quotes are read as strings', () => {
    const text = '{\n  "url": "http://x//y/*z*/{\\"}",\n  "s": {}\n}\n'
    expect(read(setMember(text, ['s', 'mcpx'], 1)!)).toEqual({ url: 'http://x//y/*z*/{"}', s: { mcpx: 1 } })
  })

  test('declines what it cannot place as text: no object on the way, or not JSON(C) at all', () => {
    expect(setMember('{ "servers": null }', ['servers', 'mcpx'], 1)).toBeUndefined()
    expect(setMember('{ "servers": [] }', ['servers', 'mcpx'], 1)).toBeUndefined()
    expect(setMember('[1]', ['mcpx'], 1)).toBeUndefined()
    expect(setMember('{ "a": ', ['mcpx'], 1)).toBeUndefined()
    expect(setMember('', ['mcpx'], 1)).toBeUndefined()
  })
})

describe('removeMember', () => {
  const text = '{\n  "servers": {\n    "a": 1, // one\n    "mcpx": { "command": "mcpx" },\n    "b": 2\n  }\n}\n'

  test('first, middle, last and only members, each with its line', () => {
    expect(removeMember(text, ['servers', 'mcpx'])).toBe('{\n  "servers": {\n    "a": 1, // one\n    "b": 2\n  }\n}\n')
    expect(removeMember(text, ['servers', 'a'])).toBe('{\n  "servers": {\n    "mcpx": { "command": "mcpx" },\n    "b": 2\n  }\n}\n')
    expect(removeMember(text, ['servers', 'b'])).toBe('{\n  "servers": {\n    "a": 1, // one\n    "mcpx": { "command": "mcpx" }\n  }\n}\n')
    expect(removeMember('{\n  "s": {\n    "mcpx": 1\n  }\n}', ['s', 'mcpx'])).toBe('{\n  "s": {\n  }\n}')
    expect(removeMember('{ "a": 1, "mcpx": 2, "b": 3 }', ['mcpx'])).toBe('{ "a": 1, "b": 3 }')
  })

  test('a trailing-comma file keeps its style', () => {
    expect(removeMember('{\n  "a": 1,\n  "mcpx": 2,\n}\n', ['mcpx'])).toBe('{\n  "a": 1,\n}\n')
  })

  test('nothing to remove: the text itself; not JSON(C): undefined', () => {
    expect(removeMember(text, ['servers', 'none'])).toBe(text)
    expect(removeMember(text, ['nowhere', 'mcpx'])).toBe(text)
    expect(removeMember('{ "a": ', ['a'])).toBeUndefined()
  })
})
