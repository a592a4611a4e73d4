/**
 * config room: the mcpx config file (host-compatible `mcpServers` plus mcpx sections), `${VAR}`
 * interpolation, the layout of the mcpx home, and reading/writing the configs of MCP hosts
 * (import/install).
 */
export { configError, interpolateDocument, type DocPath } from './interpolate.ts'
export {
  SERVER_NAME,
  type McpxConfig,
  type RemoteTransport,
  type ServerConfig,
  type ServerTarget,
} from './schema.ts'
export { defaultConfig, findConfigFile, loadConfig, parseConfig, parseServerEntry, resolveConfiguredSettings, type LoadConfigOptions } from './load.ts'
export { ensurePrivateDir, homeLayout, type HomeLayout } from './home.ts'
export { HOST_IDS, HOSTS, MCPX_ENTRY_NAME, isHostId, type HostDef, type HostEnv, type HostId, type HostSource } from './hosts.ts'
export { planImport, writeImport, type ImportPlan, type ImportedServer, type SkippedServer } from './import-hosts.ts'
export { installHost, type InstallResult } from './install-host.ts'
export { parseToml } from './toml.ts'
export { parseJsonc, stripJsonc } from './jsonc.ts'
export { writeWithBackup } from './write.ts'
