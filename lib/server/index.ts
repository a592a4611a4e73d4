/** The server room: define a server (providers + handlers) and serve it on stdio or Streamable HTTP, both eras. */
export { defineServer, defineTool, definePrompt, defineResource, defineTemplate } from './define.ts'
export { Engine, type Channel, type Answer } from './engine.ts'
export { Connection, ShutdownError, type Outlet } from './connection.ts'
export { Registry, TOOL_WIRE_FIELDS, type UnknownNames } from './registry.ts'
export { InputRequired } from './context.ts'
export { serveStdio, type StdioServer, type StdioSessionEvent } from './serve-stdio.ts'
export { serveHttp, type HttpServer, type ServeHttpOptions } from './serve-http.ts'
export { createHttpHandler } from './http/handler.ts'
export type { HttpHandler, HttpHandlerOptions, SessionEvent, SharedEvents } from './http/handler-options.ts'
export { parseEventId } from './http/event-store.ts'
export { SUPPORTED_REVISIONS } from './lifecycle.ts'
export {
  BODY_LIMIT_ENFORCED_BY_MCPX,
  type IdleControl,
  idleTimeouts,
  idleTimeoutSeconds,
  withIdleTimeouts,
  streaming,
} from './http/timeouts.ts'
export { readBody } from './http/body-read.ts'
export { requestStateOwner } from './request-state.ts'
export { keyRingFor, open as openSealed, randomKeyRing, seal, type KeyRing } from './seal.ts'
export { createRequestStateCodec } from './request-state.ts'
export { openSession, sealedSessionIds, sessionOwner, type SealedSession, type SessionSeed } from './session-id.ts'
export { taskOwner } from './tasks.ts'
export type {
  HandlerContext,
  Implementation,
  InputRequest,
  JsonObject,
  PromptArgument,
  PromptDef,
  ResourceDef,
  ServerDefinition,
  ServerNotifier,
  TemplateDef,
  ToolDef,
  ToolRelay,
  RelayedCall,
  CompleteRequest,
} from './server-definition.ts'
