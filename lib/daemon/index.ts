/**
 * daemon room: the long-lived per-user host. Listeners (Unix socket + loopback TCP) behind one
 * guard, the /v1 operation table, the event feed, the Pool contract the gateway implements, the
 * lock/token/state files, and the client the CLI uses to reach (and start) it.
 */
export { startDaemon, type Daemon, type DaemonOptions, type ShutdownHook } from './daemon.ts'
export { MCP_PATH, parseMode as parseSurfaceMode, startGatewayDaemon, type GatewayDaemonOptions } from './gateway.ts'
export { DaemonClient, type DaemonClientOptions } from './daemon-client.ts'
export { configProblemLine } from './config-problem.ts'
export { BUILD_HEADER, otherBuildLine, thisBuild, type BuildIdentity } from './build.ts'
export { inputSchemaHash, type CallStreamLine } from './call-stream.ts'
export { ConfigSource, type ConfigProblem, type ConfigSourceOptions } from './config-source.ts'
export { spawnDaemon, type SpawnOptions } from './spawn.ts'
export { announceReady } from './ready.ts'
export { CLI_SAMPLING_REFUSAL } from './host-questions.ts'
export { API_VERSION, type DaemonInfo, type Operation, type OperationContext, type ParamSpec } from './operation-contract.ts'
export { OPERATIONS, findOperation, paramsJsonSchema } from './operations.ts'
export { validateParams } from './api-routes.ts'
export {
  configuredStatus,
  type PoolCallOptions,
  type Catalog,
  type Pool,
  type ServerState,
  type ServerStatus,
} from './pool-contract.ts'
export { EventFeed, type DaemonEvent } from './events.ts'
export { checkRequest, type GuardPolicy, type Rejection, type ListenerKind } from './security.ts'
export { matchRoute, type Route, type RouteContext } from './routes.ts'

export { acquireLock, isAlive, liveOwner, type Lock } from './lock.ts'
export { ensureToken, readToken } from './token.ts'
export { runServeShim, type ServeShim, type ServeShimOptions } from './serve-shim.ts'
export {
  CHANNEL_VERSION,
  listenChannel,
  type ChannelAnswer,
  type ChannelListener,
  type ChannelOpening,
  type ChannelOptions,
} from './channel.ts'
export { connectFailure, retryWhileBusy, type ConnectFailure, type ConnectRetry } from './connect.ts'
export { ChunkedBody, postOverUnix } from './unix-post.ts'
export { createReplicaForwarder, type ReplicaForwarder } from './replica-forward.ts'
