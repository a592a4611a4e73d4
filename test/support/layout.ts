/** The daemon layout a CLI run with `env` (and optionally `--config`) addresses (lib/config/home.ts). */
import { type HomeLayout, configLocation, homeLayout } from '../../lib/config/index.ts'
import { resolvePaths, resolveSettings } from '../../lib/settings/index.ts'

export function layoutForEnv(env: Readonly<Record<string, string | undefined>>, config?: string): HomeLayout {
  const full = { HOME: process.env.HOME, ...env }
  const paths = resolvePaths(full, resolveSettings(full), config)
  return homeLayout(paths.home, configLocation(paths))
}
