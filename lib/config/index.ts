/**
 * config room: the mcpx config file (host-compatible `mcpServers` plus mcpx sections), `${VAR}`
 * interpolation, the layout of the mcpx home, and reading/writing the configs of MCP hosts
 * (import/install).
 */
export { configError, formatPath, interpolateDocument, referencedVariables, type DocPath } from './interpolate.ts'
export {
  SERVER_NAME,
  type McpxConfig,
  type RemoteTransport,
  transportKindOf,
  type ServerConfig,
  type ServerTarget,
} from './schema.ts'
export { defaultConfig, loadConfig, parseConfig, parseServerEntry, type LoadConfigOptions, type ParseOptions } from './load.ts'
export { configLocation, findConfigFile } from './location.ts'
export { checkSettingsSection, readSettingsSection, resolveConfiguredSettings } from './settings-section.ts'
export {
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  daemonId,
  ensurePrivateDir,
  homeLayout,
  runDirIds,
  stateFileOf,
  type HomeLayout,
} from './home.ts'
export {
  BASELINE_VARIABLES,
  parseDotenv,
  pickVariables,
  readEnvFile,
  readEnvSnapshot,
  useProxyVariables,
  writeEnvSnapshot,
  type EnvSnapshot,
} from './environment.ts'
export {
  HOST_IDS,
  HOSTS,
  MCPX_ENTRY_NAME,
  isHostId,
  type HostDef,
  type HostEnv,
  type HostId,
  type HostSource,
  type McpxLaunch,
} from './hosts.ts'
export { planImport, writeImport, type ImportOptions, type ImportPlan, type ImportedServer, type SkippedServer } from './import-hosts.ts'
export { installHost, uninstallHost, type InstallResult, type UninstallResult } from './install-host.ts'
export { parseToml } from './toml.ts'
export { parseJsonc, stripJsonc } from './jsonc.ts'
export { writeWithBackup } from './write.ts'
