/** A host driving `mcpx serve` over stdio, for CLI tests. */
import { REPO_ROOT, mcpxCommand } from '../harness.ts'

/** A host's `mcpx serve` over stdio: one legacy session, then `mcpx_call` of `tool`; returns its text. */
export async function callThroughServe(
  args: string[],
  env: Record<string, string>,
  tool: string,
): Promise<{ text: string; stderr: string }> {
  await using proc = Bun.spawn([...mcpxCommand(), 'serve', ...args], { cwd: REPO_ROOT, env, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
  const send = (message: object) => proc.stdin.write(`${JSON.stringify(message)}\n`)
  const reader = proc.stdout.getReader()
  let buffer = ''
  const answer = async (id: number): Promise<{ result?: { content: { text: string }[] }; error?: unknown }> => {
    for (;;) {
      const lines = buffer.split('\n')
      buffer = lines.pop()!
      for (const [index, line] of lines.entries()) {
        const message = JSON.parse(line)
        if (message.id === id) {
          buffer = [...lines.slice(index + 1), buffer].join('\n')
          return message
        }
      }
      const { value, done } = await reader.read()
      if (done) throw new Error(`serve ended before answering ${id}: ${await new Response(proc.stderr).text()}`)
      buffer += new TextDecoder().decode(value)
    }
  }
  // A host waits for the initialize answer before anything else (2025-06-18 basic/lifecycle.mdx).
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test-host', version: '1.0.0' } },
  })
  await answer(1)
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'mcpx_call', arguments: { tool, arguments: {} } } })
  const message = await answer(2)
  proc.stdin.end()
  proc.kill()
  const stderr = await new Response(proc.stderr).text()
  if (message.error || !message.result) throw new Error(`mcpx_call failed: ${JSON.stringify(message.error)}`)
  return { text: message.result.content[0]!.text, stderr }
}
