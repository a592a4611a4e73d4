/**
 * completion/complete through the renamed surfaces: the official server-everything (which offers
 * completions) behind the daemon, its prompt `<ns>_completable-prompt` and its resource template
 * `mcpx://<ns>/<template>` completed by its own answers, as a host connected to it directly gets them.
 * And what these surfaces declare of its resources: subscriptions, as it offers them.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { REPO_ROOT } from '../harness.ts'
import { testGateway } from '../support/gateway-daemon.ts'

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const TEMPLATE = 'demo://resource/dynamic/text/{resourceId}'
const daemon = testGateway('completions', { ev: { command: 'node', args: [EVERYTHING, 'stdio'] } })

async function withClient<T>(connect: (client: Client) => Promise<void>, run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'completing-host', version: '1.0.0' })
  await connect(client)
  try {
    return await run(client)
  } finally {
    await client.close()
  }
}

const direct = <T>(run: (client: Client) => Promise<T>) =>
  withClient((client) => client.connect(new StdioClientTransport({ command: 'node', args: [EVERYTHING, 'stdio'], stderr: 'ignore' })), run)
const gateway = <T>(query: string, run: (client: Client) => Promise<T>) =>
  withClient(
    (client) =>
      client.connect(new StreamableHTTPClientTransport(new URL(`${daemon.mcpUrl}${query}`), { requestInit: { headers: daemon.headers } })),
    run,
  )

describe('completion/complete on the renamed surfaces', () => {
  const prompt = (name: string) => ({ ref: { type: 'ref/prompt' as const, name }, argument: { name: 'department', value: 'E' } })
  const template = (uri: string) => ({ ref: { type: 'ref/resource' as const, uri }, argument: { name: 'resourceId', value: '1' } })

  for (const [surface, query] of [
    ['raw', '?codemode=false'],
    ['code mode', ''],
  ] as const)
    test(`${surface}: declared, and answered as the upstream answers for its prompt and its resource template`, async () => {
      const expected = await direct(async (client) => ({
        prompt: await client.complete(prompt('completable-prompt')),
        template: await client.complete(template(TEMPLATE)),
      }))
      expect(expected.prompt.completion.values.length).toBeGreaterThan(0)
      await gateway(query, async (client) => {
        expect(client.getServerCapabilities()?.completions).toBeDefined()
        // server-everything announces resource updates: the subscriptions hosts make are followed upstream.
        expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true })
        expect(await client.complete(prompt('ev_completable-prompt'))).toEqual(expected.prompt)
        expect(await client.complete(template(`mcpx://ev/${TEMPLATE}`))).toEqual(expected.template)
        // A template this surface does not list is a caller error, not a question for some upstream.
        await expect(client.complete(template('mcpx://ev/demo://nothing/{x}'))).rejects.toThrow(
          /no resource mcpx:\/\/ev\/demo:\/\/nothing\/\{x\} is listed here/,
        )
      })
    })
})
