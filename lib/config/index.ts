/**
 * config room: the mcpx config file (host-compatible `mcpServers` plus mcpx sections), `${VAR}`
 * interpolation, the layout of the mcpx home, and reading/writing the configs of MCP hosts
 * (import/install).
 */
export { configError, formatPath, interpolateDocument, interpolateString, type DocPath } from './interpolate.ts'
export {
  REMOTE_TRANSPORTS,
  SERVER_NAME,
  type McpxConfig,
  type RemoteTransport,
  type ServerConfig,
  type ServerTarget,
} from './schema.ts'
export { defaultConfig, findConfigFile, loadConfig, parseConfig, resolveConfiguredSettings, type LoadConfigOptions } from './load.ts'
export { ensurePrivateDir, homeLayout, type HomeLayout } from './home.ts'
