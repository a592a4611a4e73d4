/** The wire room: JSON-RPC envelope, spec constants, revision matrix and per-revision shaping. Pure. */
export * from './constants.ts'
export * from './jsonrpc.ts'
