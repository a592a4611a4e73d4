/**
 * Regenerate the regression recordings under test/fixtures/recordings/: one session per era
 * (2025-11-25 legacy, 2026-07-28 modern) with the everything fixture over Streamable HTTP that
 * exercises its whole surface — every tool, prompt, resource and resource template it lists —
 * recorded by mcpx's own client (lib/replay recordingTransports). Questions the fixture asks
 * (elicitation, sampling, roots) get fixed answers, so a re-run differs only in volatile fields.
 * test/lib/replay/regression.test.ts replays each file against the live fixture.
 * Usage: bun scripts/record-fixtures.ts [--check]  (--check: record to a temp dir, write nothing)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ClientHandlers, type JsonObject, connect, defaultTransports } from '../lib/client/index.ts'
import { Recorder, fileSink, readRecording, recordingTransports } from '../lib/replay/index.ts'
import { Engine, serveHttp } from '../lib/server/index.ts'
import { defaultSettings } from '../lib/settings/index.ts'
import type { Revision } from '../lib/wire/index.ts'
import { everythingServer } from '../test/fixtures/everything/server.ts'

const ROOT = new URL('..', import.meta.url).pathname
export const RECORDINGS_DIR = join(ROOT, 'test/fixtures/recordings')
export const RECORDINGS = { legacy: 'everything-legacy-2025-11-25.jsonl', modern: 'everything-modern-2026-07-28.jsonl' } as const
const REVISIONS = { legacy: '2025-11-25', modern: '2026-07-28' } as const satisfies Record<keyof typeof RECORDINGS, Revision>
const PKG_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

/** Arguments for the tools that take some (the rest are called with `{}`). */
const TOOL_ARGUMENTS: Record<string, JsonObject> = {
  test_sampling: { prompt: 'Say hi' },
  test_elicitation: { message: 'Who are you?' },
  json_schema_2020_12_tool: {
    name: 'Ada',
    contactMethod: 'email',
    email: 'ada@example.com',
    address: { street: '1 Loop', city: 'Analytical' },
  },
  test_custom_header: { region: 'eu-west' },
  greet: { name: 'Ada' },
  slow_compute: { seconds: 0, label: 'zero' },
  confirm_delete: { filename: 'notes.txt' },
}
const PROMPT_ARGUMENTS: Record<string, Record<string, string>> = {
  test_prompt_with_arguments: { arg1: 'first', arg2: 'second' },
  test_prompt_with_embedded_resource: { resourceUri: 'test://static-text' },
}

/** Fixed answers to what the fixture asks, so every run records the same session. */
const HANDLERS: ClientHandlers = {
  onElicit: (params) => ({ action: 'accept', content: answerSchema(params.requestedSchema as JsonObject | undefined) }),
  onSample: () => ({ role: 'assistant', model: 'recorded-model', content: { type: 'text', text: 'Paris, hello' }, stopReason: 'endTurn' }),
  onListRoots: () => ({ roots: [{ uri: 'file:///recorded/root', name: 'root' }] }),
}

function answerSchema(schema: JsonObject | undefined): JsonObject {
  const out: JsonObject = {}
  for (const [key, raw] of Object.entries((schema?.properties ?? {}) as Record<string, JsonObject>)) {
    if (raw.default !== undefined) out[key] = raw.default
    else if (Array.isArray(raw.enum)) out[key] = raw.enum[0]
    else if (Array.isArray(raw.oneOf)) out[key] = (raw.oneOf[0] as JsonObject).const
    else if (raw.type === 'array')
      out[key] = [
        ((raw.items as JsonObject).enum as unknown[] | undefined)?.[0] ?? ((raw.items as JsonObject).anyOf as JsonObject[])[0]!.const,
      ]
    else if (raw.type === 'boolean') out[key] = true
    else if (raw.type === 'number' || raw.type === 'integer') out[key] = 1
    else out[key] = key === 'email' ? 'ada@example.com' : key === 'color' ? 'green' : 'ada'
  }
  return out
}

/** Record one era's whole-surface session to `file`; returns how many requests of each kind. */
export async function recordSurface(era: keyof typeof RECORDINGS, file: string): Promise<Record<string, number>> {
  const settings = defaultSettings({ requestTimeoutMs: 30_000 })
  await using server = serveHttp(new Engine(everythingServer, settings), settings)
  const recorder = new Recorder({
    sink: fileSink(file),
    mcpxVersion: PKG_VERSION,
    role: 'client',
    transport: 'streamable-http',
    peer: { url: 'http://127.0.0.1/mcp' },
  })
  const client = await connect(
    { url: server.url },
    {
      settings,
      revision: REVISIONS[era],
      noCache: true,
      serverStream: false,
      handlers: HANDLERS,
      transports: recordingTransports(defaultTransports, recorder),
    },
  )
  const counts = { tools: 0, prompts: 0, resources: 0, templates: 0 }
  // Failures (a tool that needs a task the client did not negotiate, an error result) are part of
  // the surface: the recording keeps the error and the replay compares its code and data.
  const attempt = (work: Promise<unknown>) => work.catch(() => undefined)
  try {
    for (const tool of await client.listAllTools()) {
      const name = String(tool.name)
      await attempt(client.callTool(name, TOOL_ARGUMENTS[name] ?? {}, { onProgress: () => {} }))
      counts.tools++
    }
    for (const prompt of await client.listAllPrompts()) {
      const name = String(prompt.name)
      await attempt(client.getPrompt(name, PROMPT_ARGUMENTS[name] ?? {}))
      counts.prompts++
    }
    // The completions capability, asked for each prompt argument.
    for (const prompt of await client.listAllPrompts()) {
      for (const argument of (prompt.arguments ?? []) as JsonObject[]) {
        await attempt(
          client.request('completion/complete', {
            ref: { type: 'ref/prompt', name: String(prompt.name) },
            argument: { name: String(argument.name), value: '' },
          }),
        )
      }
    }
    for (const resource of await client.listAllResources()) {
      await attempt(client.readResource(String(resource.uri)))
      counts.resources++
    }
    for (const template of await client.listAllResourceTemplates()) {
      await attempt(client.readResource(String(template.uriTemplate).replace(/\{[^}]+\}/g, '42')))
      counts.templates++
    }
  } finally {
    await client.close()
    recorder.close()
  }
  return counts
}

if (import.meta.main) {
  const check = process.argv.includes('--check')
  const dir = check ? mkdtempSync(join(tmpdir(), 'mcpx-recordings-')) : RECORDINGS_DIR
  mkdirSync(dir, { recursive: true })
  try {
    for (const era of ['legacy', 'modern'] as const) {
      const file = join(dir, RECORDINGS[era])
      const counts = await recordSurface(era, file)
      const recording = readRecording(file)
      process.stderr.write(
        `${file}: ${recording.era} ${recording.revision}, ${recording.messages.length} messages; ${JSON.stringify(counts)}\n`,
      )
    }
  } finally {
    if (check) rmSync(dir, { recursive: true, force: true })
  }
}
