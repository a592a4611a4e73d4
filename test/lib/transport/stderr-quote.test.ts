/**
 * A crash reason quotes the upstream's stderr only when it was written after the failing request
 * was sent: an unrelated warning from the server's start (an SDK deprecation notice) is not offered
 * as the reason it died; what it wrote while handling the request is.
 */
import { expect, test } from 'bun:test'
import { createStdioTransport } from '../../../lib/transport/index.ts'
import { testSettings } from '../../harness.ts'
import { listTools, open } from './peer-harness.ts'

const settings = testSettings({ shutdownGraceMs: 300 })
// Warns at start; on its first request writes the real cause and exits.
const SCRIPT = `
process.stderr.write('warning: some SDK option is deprecated\\n')
for await (const _ of Bun.stdin.stream()) {
  process.stderr.write('fatal: database locked\\n')
  process.exit(9)
}`

test('the crash reason quotes stderr written after the request, not the startup warning', async () => {
  const peer = await open(createStdioTransport({ command: process.execPath, args: ['-e', SCRIPT] }, settings))
  await Bun.sleep(300)
  await peer.transport.send(listTools(1))
  const reason = await peer.rec.closed
  expect(reason?.message).toContain('exited with code 9')
  expect(reason?.message).toContain('fatal: database locked')
  expect(reason?.message).not.toContain('deprecated')
})
