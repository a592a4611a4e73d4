/** Tunables of code mode: the QuickJS sandbox pool (mcpx_exec), tool search, type rendering and schema validation. */
import { defineSettings } from './define.ts'

const KiB = 1024
const MiB = 1024 * KiB

export const CODEMODE_SETTINGS = defineSettings({
  codemodeTimeoutMs: {
    default: 30_000,
    env: 'MCPX_CODEMODE_TIMEOUT_MS',
    doc: 'Wall-clock deadline of one mcpx_exec script, tool calls included',
  },
  codemodeCpuSliceMs: {
    default: 1_000,
    env: 'MCPX_CODEMODE_CPU_SLICE_MS',
    doc: 'Longest a script may run synchronously without awaiting before it is stopped',
  },
  codemodeKillGraceMs: {
    default: 500,
    env: 'MCPX_CODEMODE_KILL_GRACE_MS',
    doc: 'After a deadline, how long the sandbox process gets to stop a script before SIGKILL',
  },
  codemodeMemoryMb: { default: 64, env: 'MCPX_CODEMODE_MEMORY_MB', doc: "Hard cap of one script's heap (the wasm Memory maximum)" },
  codemodeStackBytes: {
    default: 512 * KiB,
    env: 'MCPX_CODEMODE_STACK_BYTES',
    doc: 'QuickJS stack limit of one script (deep recursion fails with a RangeError)',
  },
  codemodeAddressSpaceMb: {
    default: 0,
    env: 'MCPX_CODEMODE_ADDRESS_SPACE_MB',
    doc: 'ulimit -v of each sandbox process in MiB (0 = not set)',
  },
  codemodeProcesses: {
    default: 0,
    env: 'MCPX_CODEMODE_PROCESSES',
    doc: 'Sandbox child processes kept warm from the first code-mode host on (0 = one per CPU core); busy ones get an idle sibling started on demand',
  },
  codemodeMaxConcurrentExecs: {
    default: 16,
    env: 'MCPX_CODEMODE_MAX_CONCURRENT',
    doc: 'Execs running at once across the pool, each in its own sandbox process when it starts; more wait in a queue',
  },
  codemodeMaxQueuedExecs: { default: 64, env: 'MCPX_CODEMODE_MAX_QUEUED', doc: 'Execs waiting for a slot beyond which exec fails at once' },
  codemodeMaxToolCalls: { default: 1_000, env: 'MCPX_CODEMODE_MAX_TOOL_CALLS', doc: 'Tool calls plus searches one script may make' },
  codemodeMaxConcurrentCalls: {
    default: 16,
    env: 'MCPX_CODEMODE_MAX_CONCURRENT_CALLS',
    doc: 'Tool calls of one script in flight at once; more wait their turn',
  },
  codemodeMaxCodeBytes: { default: 256 * KiB, env: 'MCPX_CODEMODE_MAX_CODE_BYTES', doc: 'Largest script accepted' },
  codemodeMaxResultBytes: {
    default: 1 * MiB,
    env: 'MCPX_CODEMODE_MAX_RESULT_BYTES',
    doc: 'Largest JSON a script may return, and largest tool-call argument JSON',
  },
  codemodeMaxCallResultBytes: {
    default: 4 * MiB,
    env: 'MCPX_CODEMODE_MAX_CALL_RESULT_BYTES',
    doc: 'Largest tool result JSON handed back into a script',
  },
  codemodeMaxLogLines: {
    default: 200,
    env: 'MCPX_CODEMODE_MAX_LOG_LINES',
    doc: 'console lines kept per exec; the rest are counted and dropped',
  },
  codemodeMaxLogLineBytes: {
    default: 2 * KiB,
    env: 'MCPX_CODEMODE_MAX_LOG_LINE_BYTES',
    doc: 'Longest console line kept (longer ones are cut)',
  },
  codemodeMaxEventLoopLagMs: {
    default: 250,
    env: 'MCPX_CODEMODE_MAX_LAG_MS',
    doc: "Bound on the caller's event-loop lag while hostile scripts run (asserted by the hostile-code suite)",
  },
  searchDefaultLimit: { default: 10, env: 'MCPX_SEARCH_LIMIT', doc: 'Tool search hits returned when the caller gives no limit' },
  searchMaxLimit: { default: 100, env: 'MCPX_SEARCH_MAX_LIMIT', doc: 'Most tool search hits returned whatever the caller asks' },
  schemaMaxBytes: {
    default: 256 * KiB,
    env: 'MCPX_SCHEMA_MAX_BYTES',
    doc: 'Upstream JSON Schemas larger than this are not validated or rendered (pass-through / unknown)',
  },
  schemaMaxDepth: {
    default: 64,
    env: 'MCPX_SCHEMA_MAX_DEPTH',
    doc: 'Upstream JSON Schemas nested deeper than this are not validated (pass-through)',
  },
  schemaMaxPatternLength: {
    default: 512,
    env: 'MCPX_SCHEMA_MAX_PATTERN_LENGTH',
    doc: 'Longer `pattern` regexes in upstream schemas are ignored',
  },
  schemaMaxValidatedStringLength: {
    default: 64 * KiB,
    env: 'MCPX_SCHEMA_MAX_PATTERN_INPUT',
    doc: 'Strings longer than this skip `pattern` checks (bounds regex backtracking on the daemon thread)',
  },
  schemaCacheSize: { default: 2_000, env: 'MCPX_SCHEMA_CACHE_SIZE', doc: 'Compiled tool schemas kept (least recently used dropped)' },
  typesMaxDepth: {
    default: 12,
    env: 'MCPX_TYPES_MAX_DEPTH',
    doc: 'Schema nesting rendered into TypeScript before falling back to unknown',
  },
})
