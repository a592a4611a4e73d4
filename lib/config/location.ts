/**
 * Which config file a command reads and which config location names its daemon: paths only, so a
 * warm `mcpx call` finds its daemon's run directory (home.ts) without loading the file's schemas.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { McpxPaths } from '../settings/index.ts'

/** The config file that would be read, or null when none exists (the embedded default applies). */
export function findConfigFile(paths: McpxPaths): string | null {
  if (paths.explicitConfig !== undefined) return resolve(paths.explicitConfig)
  return paths.configCandidates.find((candidate) => existsSync(candidate)) ?? null
}

/**
 * The config location that identifies a daemon: the explicit file (absolute), else the default
 * location, whether or not a file exists there yet (the same id whichever candidate holds the
 * file, so a file appearing never orphans the daemon already serving the default).
 */
export function configLocation(paths: McpxPaths): string {
  if (paths.explicitConfig !== undefined) return resolve(paths.explicitConfig)
  return paths.defaultConfig
}
