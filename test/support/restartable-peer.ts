/**
 * Peers a test stops and starts again on the same address (an upstream's URL in the gateway's
 * config stays the same across the restart): a free loopback port, a server process taken as
 * started once it says on stderr that it listens, and a wait for what the restart leads to.
 */
import { join } from 'node:path'
import { REPO_ROOT } from '../harness.ts'

/** The official server-everything, run by node (its HTTP modes take PORT from the environment). */
export const SERVER_EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')

export type ListeningPeer = Bun.Subprocess<'ignore', 'ignore', 'pipe'>

/** A loopback port nothing listens on now. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

/** Spawn `command`; resolves once its stderr matches `listening`, and keeps reading it (the pipe never fills). */
export async function startListening(command: string[], listening: RegExp, env: Record<string, string> = {}): Promise<ListeningPeer> {
  const proc = Bun.spawn(command, { env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' })
  const reader = proc.stderr.getReader()
  let text = ''
  while (!listening.test(text)) {
    const next = await reader.read()
    if (next.done) throw new Error(`${command.join(' ')} exited before listening: ${text}`)
    text += new TextDecoder().decode(next.value)
  }
  void (async () => {
    while (!(await reader.read()).done) {}
  })()
  return proc
}

/** Whether `check` holds, polled until it does or `withinMs` have passed. */
export async function holdsWithin(check: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs
  while (!check() && Date.now() < deadline) await Bun.sleep(20)
  return check()
}
