/**
 * A loopback port nothing listens on now, for a peer a test restarts on the same address (an
 * upstream's URL in the gateway's config stays the same across the restart).
 */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}
