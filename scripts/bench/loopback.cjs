/**
 * `node --require loopback.cjs …`: pins host-less `server.listen(port)` calls to 127.0.0.1, so peers
 * without a host flag (supergateway) never bind every interface during a benchmark.
 */
const net = require('node:net')
const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && (args.length === 1 || typeof args[1] !== 'string')) args.splice(1, 0, '127.0.0.1')
  else if (args[0] && typeof args[0] === 'object' && args[0].port !== undefined && !args[0].host)
    args[0] = { ...args[0], host: '127.0.0.1' }
  return listen.apply(this, args)
}
