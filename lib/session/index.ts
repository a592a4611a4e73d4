/** The session room: the JSON-RPC request correlation engine shared by client and server roles. */
export { Peer, isLostInFlight, resendable } from './peer.ts'
export type {
  CancelMode,
  IncomingRequestContext,
  NotificationListener,
  PeerOptions,
  ProgressUpdate,
  RequestHandler,
  RequestOptions,
} from './peer-options.ts'
