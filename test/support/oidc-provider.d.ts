/** oidc-provider ships no type declarations; the tests use only its constructor, `on` and `callback`. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'
  export default class Provider {
    constructor(issuer: string, configuration: object)
    on(event: string, listener: (...args: unknown[]) => void): this
    callback(): (request: IncomingMessage, response: ServerResponse) => void
  }
}
