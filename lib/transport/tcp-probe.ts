/**
 * Whether something accepts a new TCP connection at an http(s)://host:port now, asked on a socket
 * of its own (closed at once). fetch cannot say it: it may hand back a connection it kept alive to
 * a peer that has since died, which is reset, where a new one to a dead peer is refused.
 */
export async function acceptsConnections(peer: string): Promise<boolean> {
  const { hostname, port, protocol } = new URL(peer)
  try {
    const socket = await Bun.connect({ hostname, port: Number(port || (protocol === 'https:' ? 443 : 80)), socket: { data() {} } })
    socket.end()
    return true
  } catch {
    return false
  }
}
