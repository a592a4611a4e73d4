/** The version string, from package.json (embedded by `bun build --compile`). */
import pkg from '../package.json' with { type: 'json' }

export const VERSION: string = pkg.version
