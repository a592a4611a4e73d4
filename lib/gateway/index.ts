/**
 * The gateway room: the pool of upstream connections, upstream naming (`ns.tool`, `<ns>_<tool>`,
 * `mcpx://<ns>/<uri>`), brokering of upstream questions back to the calling host, and the MCP
 * surfaces mcpx offers downstream.
 */
export { UpstreamPool, type UpstreamPoolOptions } from './upstream-pool.ts'
export { Upstream, type UpstreamContext } from './upstream.ts'
export { ALL_QUESTIONS, Broker, type DownstreamAsker, type QuestionKind } from './broker.ts'
export { gatewayResourceUri, rawName, splitQualified, suggest, unknownToolError, type QualifiedName } from './naming.ts'
export type { Catalog, ServerState, ServerStatus, UpstreamCallOptions } from './pool-shapes.ts'
export { configuredStatus } from './status.ts'
export { GatewaySurface, type SurfaceMode, type SurfaceOptions } from './surfaces/surface.ts'
export { ParkingLot } from './surfaces/parking.ts'
export { CodeMode, type CodeModeOptions, type TypesQuery } from './code-mode.ts'
