/**
 * How the daemon's pool connects each upstream: HTTP upstreams get lib/auth's OAuth provider with
 * the mcpx home's credential store and no interactive login (a daemon has no browser), stdio
 * upstreams inherit the daemon's baseline environment (lib/config/environment.ts). A login the daemon cannot do
 * becomes an AUTH error naming `mcpx auth login <server>`. The OAuth provider (lib/auth and jose,
 * about 75 KB of JavaScript) is upstream-oauth.ts, loaded with the first HTTP upstream that can use
 * it: a daemon of stdio upstreams never evaluates it (README "Start-up and memory").
 */
import type { ConnectOptions } from '../client/index.ts'
import type { ServerConfig } from '../config/index.ts'
import type { Settings } from '../settings/index.ts'

export interface UpstreamConnectContext {
  readonly settings: Settings
  /** The mcpx home: OAuth credentials live in `<home>/oauth/`. */
  readonly home: string
  /** Environment stdio upstreams inherit (read at each connect); default none. */
  readonly parentEnv?: Readonly<Record<string, string | undefined>> | (() => Readonly<Record<string, string | undefined>>)
}

/** The pool's `connectOptions`: called on every (re)connect, so a login done meanwhile is seen. */
export function upstreamConnectOptions(
  context: UpstreamConnectContext,
): (server: ServerConfig) => Partial<ConnectOptions> | Promise<Partial<ConnectOptions>> {
  return (server) => {
    const target = server.target
    if (target.kind === 'stdio') {
      const parentEnv = typeof context.parentEnv === 'function' ? context.parentEnv() : context.parentEnv
      return parentEnv === undefined ? {} : { parentEnv }
    }
    // A static Authorization header from the config is the credential; OAuth would only get in its way.
    if (!target.oauth && Object.keys(target.headers).some((name) => name.toLowerCase() === 'authorization')) return {}
    return import('./upstream-oauth.ts').then(({ upstreamOAuth }) => ({ auth: upstreamOAuth(server.name, target, context) }))
  }
}
