/** The session room: the JSON-RPC request correlation engine shared by client and server roles. */
export {
  Peer,
  type CancelMode,
  type IncomingRequestContext,
  type NotificationListener,
  type PeerOptions,
  type ProgressUpdate,
  type RequestHandler,
  type RequestOptions,
} from './peer.ts'
