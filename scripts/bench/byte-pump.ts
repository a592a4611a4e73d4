/**
 * The byte-pump floor of `mcpx serve`: the least a two-hop stdio relay can do on this machine.
 *   bun byte-pump.ts listen SOCKET -- COMMAND…   accept Unix connections; each gets its own COMMAND
 *                                               (the echo server), bytes copied both ways
 *   bun byte-pump.ts connect SOCKET             what the host spawns: stdin → SOCKET → stdout
 * No framing, no parsing, no validation: host → pump → pump → server stdin and back, with the same I/O
 * primitives `mcpx serve` and its daemon use (Bun.stdin.stream, process.stdout, Bun.listen/connect).
 * `listen` prints `{"ready": true}` once listening and exits on stdin EOF.
 */
import type { Socket } from 'bun'

const [mode, socketPath, ...rest] = process.argv.slice(2)
if (!socketPath || (mode !== 'listen' && mode !== 'connect'))
  throw new Error('usage: byte-pump.ts listen SOCKET -- COMMAND… | connect SOCKET')

if (mode === 'listen') {
  const command = rest[0] === '--' ? rest.slice(1) : rest
  type Upstream = { child: ReturnType<typeof Bun.spawn<'pipe', 'pipe', 'inherit'>> }
  Bun.listen<Upstream>({
    unix: socketPath,
    socket: {
      binaryType: 'uint8array',
      open(socket) {
        const child = Bun.spawn(command, { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })
        socket.data = { child }
        void (async () => {
          const reader = child.stdout.getReader()
          for (let next = await reader.read(); !next.done; next = await reader.read()) {
            socket.write(next.value)
            // Written outside a socket handler, Bun holds the bytes until the loop's next turn: push them now.
            socket.flush()
          }
        })()
      },
      data(socket, chunk) {
        socket.data.child.stdin.write(chunk)
        socket.data.child.stdin.flush()
      },
      close(socket: Socket<Upstream>) {
        socket.data.child.kill()
      },
    },
  })
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`)
  process.stdin.on('end', () => process.exit(0))
  process.stdin.resume()
} else {
  const socket = await Bun.connect({
    unix: socketPath,
    socket: {
      binaryType: 'uint8array',
      data(_socket, chunk) {
        process.stdout.write(chunk)
      },
      close() {
        process.exit(0)
      },
    },
  })
  const reader = Bun.stdin.stream().getReader()
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    socket.write(next.value)
    socket.flush()
  }
  socket.end()
}
