/**
 * The committed recordings (test/fixtures/recordings/, made by scripts/record-fixtures.ts) as
 * regression fixtures: each era's whole-surface session with the everything fixture is replayed
 * against the live fixture and must not diverge, so a behaviour change in lib/server fails here
 * with a readable diff. Also checked: the recordings still cover everything the fixture lists
 * (a new tool, prompt or resource means: regenerate), and a changed answer is caught.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { connect } from '../../../lib/client/index.ts'
import { formatAgainstReport, readRecording, replayAgainst, type Recording } from '../../../lib/replay/index.ts'
import { Engine, defineServer, defineTool, serveHttp, type ServerDefinition } from '../../../lib/server/index.ts'
import { createHttpTransport } from '../../../lib/transport/index.ts'
import { RECORDINGS, RECORDINGS_DIR } from '../../../scripts/record-fixtures.ts'
import { everythingServer } from '../../fixtures/everything/server.ts'
import { testSettings } from '../../harness.ts'

const settings = testSettings()
const REGENERATE = 'regenerate with `bun scripts/record-fixtures.ts` and review the diff'

async function replay(recording: Recording, definition: ServerDefinition = everythingServer) {
  await using server = serveHttp(new Engine(definition, settings), settings)
  const report = await replayAgainst(recording, createHttpTransport({ url: server.url }, settings), { settings })
  return { report, text: formatAgainstReport(report, 'the everything fixture') }
}

describe.each(['legacy', 'modern'] as const)('regression recording, %s era', (era) => {
  const recording = readRecording(join(RECORDINGS_DIR, RECORDINGS[era]))

  test('replays against the live everything fixture with no divergence', async () => {
    expect(recording.era).toBe(era)
    const { report, text } = await replay(recording)
    // On failure the readable report (method, params, `- recorded` / `+ observed` per JSON Pointer) is the message.
    expect(report.divergences.length === 0 ? 'no divergence' : text).toBe('no divergence')
    expect(report.requests).toBeGreaterThan(40)
  })

  test('covers every tool, prompt, resource and template the fixture lists', async () => {
    await using server = serveHttp(new Engine(everythingServer, settings), settings)
    const client = await connect(
      { url: server.url },
      { settings, revision: recording.revision as never, noCache: true, serverStream: false },
    )
    const listed = {
      tools: (await client.listAllTools()).map((t) => String(t.name)),
      prompts: (await client.listAllPrompts()).map((p) => String(p.name)),
      resources: (await client.listAllResources()).map((r) => String(r.uri)),
      templates: (await client.listAllResourceTemplates()).map((t) => String(t.uriTemplate).replace(/\{[^}]+\}/g, '42')),
    }
    await client.close()
    const asked = (method: string, key: string) =>
      new Set(
        recording.messages
          .filter((m) => m.direction === 'to-server' && m.message.method === method)
          .map((m) => String((m.message.params as Record<string, unknown>)[key])),
      )
    const called = asked('tools/call', 'name')
    const prompted = asked('prompts/get', 'name')
    const read = asked('resources/read', 'uri')
    const missing = [
      ...listed.tools.filter((n) => !called.has(n)).map((n) => `tool ${n}`),
      ...listed.prompts.filter((n) => !prompted.has(n)).map((n) => `prompt ${n}`),
      ...[...listed.resources, ...listed.templates].filter((u) => !read.has(u)).map((u) => `resource ${u}`),
    ]
    expect(missing.length === 0 ? 'complete' : `not recorded: ${missing.join(', ')}; ${REGENERATE}`).toBe('complete')
  })

  test('a behaviour change in the server is reported as exactly that difference', async () => {
    const changed = defineServer({
      ...everythingServer,
      tools: everythingServer.tools!.map((tool) =>
        tool.name === 'test_simple_text'
          ? defineTool({ ...tool, handler: () => ({ content: [{ type: 'text', text: 'changed' }] }) })
          : tool,
      ),
    })
    const { report, text } = await replay(recording, changed)
    expect(report.divergences).toHaveLength(1)
    expect(report.divergences[0]).toMatchObject({
      method: 'tools/call',
      params: { name: 'test_simple_text' },
      differences: [{ path: '/result/content/0/text', recorded: 'This is a simple text response for testing.', observed: 'changed' }],
    })
    expect(text).toContain('+ /result/content/0/text: "changed"')
  })

  test('a changed question the server asks mid-call is reported (legacy: the server request; modern: inputRequests)', async () => {
    const changed = defineServer({
      ...everythingServer,
      tools: everythingServer.tools!.map((tool) =>
        tool.name === 'test_elicitation'
          ? defineTool({ ...tool, handler: (args, ctx) => tool.handler({ ...args, message: `${String(args.message)}!` }, ctx) })
          : tool,
      ),
    })
    const { report } = await replay(recording, changed)
    expect(report.divergences).toHaveLength(1)
    const [only] = report.divergences
    expect(only).toMatchObject({ method: 'tools/call', params: { name: 'test_elicitation' } })
    const path = era === 'legacy' ? '<elicitation/create>/params/message' : '/result/inputRequests/elicitation-1/params/message'
    expect(only!.differences).toEqual([{ path, recorded: 'Who are you?', observed: 'Who are you?!', kind: 'changed' }])
  })
})
