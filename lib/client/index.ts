/** The client room: connect to any MCP server (either era, any transport) and talk to it. */
export { connect, MCPX_CLIENT_INFO, type ConnectInternals } from './connect.ts'
export { McpClient, type CallOptions } from './mcp-client.ts'
export type { Page } from './pagination.ts'
export { isModernError } from './handshake.ts'
export { answerInputRequests } from './input.ts'
export { defaultTransports, type StdioLaunch, type TransportFactory, type SessionControl } from './open-transport.ts'
export { clearVerdictMemory, readVerdict, verdictKey, writeVerdict, type Verdict } from './verdict-cache.ts'
export {
  isHttpTarget,
  type ClientHandlers,
  type ConnectOptions,
  type ElicitHandler,
  type FollowFilter,
  type Following,
  type HttpTarget,
  type Implementation,
  type InputContext,
  type JsonObject,
  type ListRootsHandler,
  type SampleHandler,
  type ServerIdentity,
  type StdioTarget,
  type Target,
  type TimingStep,
} from './connect-options.ts'
