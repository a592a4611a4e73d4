/** JSON-RPC messages the server reliability tests send, over stdio and over HTTP alike. */
export const init = (id: number | string, protocolVersion: unknown) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
})

export const call = (id: number | string, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})
