/**
 * The mcpx config file: the `mcpServers` map hosts already use (stdio `{command,args,env,cwd}` or
 * remote `{url,headers,transport}`), mcpx's per-server options inline in each entry (pinned
 * `protocol`, `codemode`, `allowedTools`/`blockedTools`, `record`, `disabled`), and a `settings`
 * section keyed by setting name (checked by settings-section.ts), and the `access` policy of /mcp's OAuth callers. Entries are strict so a typo is an error, not a silent default.
 */
import * as v from 'valibot'
import { type AccessPolicy, AccessPolicySchema } from '../access/index.ts'
import { type OAuthUpstreamConfig, OAuthUpstreamConfigSchema } from '../auth/index.ts'
import type { SettingOverrides } from '../settings/index.ts'
import { HTTP_TOKEN, REVISIONS, type Revision } from '../wire/index.ts'

/** Server names become the `server.` prefix of tool names, so no dots or spaces. */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/

/**
 * An object of names to values. valibot's record takes an array too (its indexes become the names:
 * `"env": ["A=1"]` gave the child a variable named "0"), so arrays are refused first.
 */
function nameMap<T extends v.GenericSchema>(value: T) {
  return v.pipe(
    v.custom<Record<string, unknown>>((input) => !Array.isArray(input), 'must be an object ({"name": value, …}), not an array'),
    v.record(v.string(), value),
  )
}

const StringMap = nameMap(v.string())

/** RFC 9110 section 5.5: a field value holds no control characters but tab (a line break would end the header). */
const HEADER_VALUE = /^[^\x00-\x08\x0a-\x1f\x7f]*$/

/** `headers`: names that are HTTP tokens, values without line breaks, checked after `${VAR}` is filled in. */
const HeaderMap = nameMap(
  v.pipe(v.string(), v.regex(HEADER_VALUE, 'must not hold a line break or another control character (it would end the header)')),
)
const HEADER_NAMES = v.custom<Record<string, string>>(
  (input) => Object.keys(input as Record<string, string>).every((name) => HTTP_TOKEN.test(name)),
  (issue) => {
    const bad = Object.keys(issue.input as Record<string, string>).find((name) => !HTTP_TOKEN.test(name))
    return `header name ${JSON.stringify(bad)} is not an HTTP token (letters, digits and !#$%&'*+.^_\`|~-, no spaces or colons)`
  },
)
const ToolList = v.array(v.pipe(v.string(), v.minLength(1)))

const OPTION_ENTRIES = {
  description: v.optional(v.string()),
  disabled: v.optional(v.boolean()),
  protocol: v.optional(v.picklist(REVISIONS, `must be one of ${REVISIONS.join(', ')}`)),
  codemode: v.optional(v.boolean()),
  allowedTools: v.optional(ToolList),
  blockedTools: v.optional(ToolList),
  record: v.optional(v.pipe(v.string(), v.minLength(1))),
  roots: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
}

export const StdioEntrySchema = v.strictObject({
  type: v.optional(v.literal('stdio')),
  command: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
  args: v.optional(v.array(v.string())),
  env: v.optional(StringMap),
  cwd: v.optional(v.string()),
  ...OPTION_ENTRIES,
})

const HTTP_TYPES = ['http', 'streamable-http', 'sse'] as const
const REMOTE_TRANSPORTS = ['auto', 'streamable-http', 'sse'] as const
export type RemoteTransport = (typeof REMOTE_TRANSPORTS)[number]

/**
 * A remote transport in the transport room's words: config files say `sse` (hosts' configs spell
 * it so, and mcpx import keeps it), the transport room says `http+sse` (the 2024-11-05 HTTP+SSE
 * transport). The one translation; `auto` stays undecided (the client probes).
 */
export function transportKindOf(transport: RemoteTransport): 'auto' | 'streamable-http' | 'http+sse' {
  return transport === 'sse' ? 'http+sse' : transport
}

export const RemoteEntrySchema = v.strictObject({
  type: v.optional(v.picklist(HTTP_TYPES, `must be one of ${HTTP_TYPES.join(', ')}`)),
  url: v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:/i, 'must be an http(s) URL')),
  headers: v.optional(v.pipe(HeaderMap, HEADER_NAMES)),
  transport: v.optional(v.picklist(REMOTE_TRANSPORTS, `must be one of ${REMOTE_TRANSPORTS.join(', ')}`)),
  /** OAuth client options for this upstream (lib/auth); absent = discover everything. */
  oauth: v.optional(OAuthUpstreamConfigSchema),
  ...OPTION_ENTRIES,
})

export type StdioEntry = v.InferOutput<typeof StdioEntrySchema>
export type RemoteEntry = v.InferOutput<typeof RemoteEntrySchema>

/** Top level: servers are validated entry by entry (see load.ts) so each error names its entry. */
export const ConfigFileSchema = v.strictObject({
  $schema: v.optional(v.string()),
  /** dotenv file whose variables `${VAR}` sees first (relative to the config file). */
  envFile: v.optional(v.string()),
  mcpServers: v.optional(nameMap(v.unknown()), {}),
  /** Checked by settings-section.ts against the registry (names, and values of each default's type). */
  settings: v.optional(v.unknown()),
  /** Per-principal policy for OAuth callers of /mcp (lib/access policy.ts). */
  access: v.optional(AccessPolicySchema),
})

/** How mcpx reaches one upstream server. */
export type ServerTarget =
  | {
      readonly kind: 'stdio'
      readonly command: string
      readonly args: readonly string[]
      readonly env: Readonly<Record<string, string>>
      readonly cwd?: string
    }
  | {
      readonly kind: 'http'
      readonly url: string
      readonly headers: Readonly<Record<string, string>>
      readonly transport: RemoteTransport
      /** The entry's `oauth` block, handed to lib/auth's createUpstreamAuth. */
      readonly oauth?: OAuthUpstreamConfig
    }

/** One configured upstream, normalised. */
export interface ServerConfig {
  readonly name: string
  readonly target: ServerTarget
  readonly description?: string
  readonly disabled: boolean
  /** Pinned protocol revision; absent = negotiate. */
  readonly protocol?: Revision
  /** false keeps this server's tools out of code mode. */
  readonly codemode: boolean
  readonly allowedTools?: readonly string[]
  readonly blockedTools?: readonly string[]
  /** Record this server's traffic to this file. */
  readonly record?: string
  /**
   * `file://` URIs mcpx answers this server's `roots/list` with when the question cannot be put to
   * the one caller it belongs to (README "Brokering"); from `roots` (paths relative to the config
   * file, or URIs); none unless set.
   */
  readonly roots?: readonly string[]
  /** Why this server cannot be started as configured (an unset variable, a missing command…). */
  readonly unavailable?: string
}

/** A loaded, validated, interpolated config. */
export interface McpxConfig {
  /** The file it came from; null for the embedded default. */
  readonly source: string | null
  readonly servers: Readonly<Record<string, ServerConfig>>
  /** Setting overrides from the file's `settings` section. */
  readonly settings: SettingOverrides
  /** The `access` section: which servers and tools each OAuth principal may use; absent = all. */
  readonly access?: AccessPolicy
  /** Every variable the file references, with where its value came from ("not set" when nowhere). */
  readonly variables?: Readonly<Record<string, string>>
  /** The resolved `envFile`, when the file names one. */
  readonly envFile?: string
}
