/** The session room: the client's JSON-RPC request correlation (ids, deadlines, cancellation, progress); the server engine correlates its own requests to its client in server/connection.ts. */
export { Peer } from './peer.ts'
export { isLostInFlight, resendable } from './in-flight.ts'
export { DeadlineQueue, type Deadline } from './deadlines.ts'
export type { AnswerReceiver } from './pending.ts'
export type {
  CancelMode,
  IncomingRequestContext,
  NotificationListener,
  PeerOptions,
  ProgressUpdate,
  RequestHandler,
  RequestOptions,
} from './peer-options.ts'
