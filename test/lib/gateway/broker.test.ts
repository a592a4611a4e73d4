/**
 * The brokering policy (README "Brokering"): a legacy upstream's question goes to the one call in
 * flight on its connection; with none or several it is answered from the configured roots
 * (roots/list) or refused with -32021 naming what is missing, never guessed.
 */
import { describe, expect, test } from 'bun:test'
import { RpcError } from '../../../lib/errors/index.ts'
import { Broker, type DownstreamAsker } from '../../../lib/gateway/index.ts'

/** A question as a legacy upstream's transport delivers it: outside any call's async flow. */
function askFromTransport(broker: Broker, kind: 'onElicit' | 'onListRoots'): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) =>
    setTimeout(
      () =>
        Promise.resolve(broker.handlers()[kind]!({}, { era: 'legacy', via: 'request', key: 1 })).then(
          (answer) => resolve(answer as Record<string, unknown>),
          reject,
        ),
      0,
    ),
  )
}

const host = (name: string): DownstreamAsker => ({
  elicit: async () => ({ action: 'accept', content: { from: name } }),
  listRoots: async () => ({ roots: [{ uri: `file:///${name}` }] }),
})

/** Keep one call open on the broker until `release` is called. */
function openCall(broker: Broker, asker: DownstreamAsker | undefined) {
  let release!: () => void
  const done = broker.run(asker, () => new Promise<void>((resolve) => (release = resolve)))
  return { release: () => (release(), done) }
}

describe('Broker', () => {
  test('the one call in flight gets the question', async () => {
    const broker = new Broker('up', ['file:///cfg'])
    const call = openCall(broker, host('a'))
    expect(await askFromTransport(broker, 'onElicit')).toEqual({ action: 'accept', content: { from: 'a' } })
    expect(await askFromTransport(broker, 'onListRoots')).toEqual({ roots: [{ uri: 'file:///a' }] })
    await call.release()
  })

  test('no call in flight: roots come from the config, other questions are refused naming why', async () => {
    const broker = new Broker('up', ['file:///cfg'])
    expect(await askFromTransport(broker, 'onListRoots')).toEqual({ roots: [{ uri: 'file:///cfg' }] })
    const refused = await askFromTransport(broker, 'onElicit').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(RpcError)
    expect((refused as RpcError).rpcCode).toBe(-32021)
    expect((refused as RpcError).message).toContain('no call is in flight')
    expect((refused as RpcError).rpcData).toEqual({ requiredCapabilities: { elicitation: {} } })
  })

  test('several calls of different hosts in flight: nobody is guessed', async () => {
    const broker = new Broker('up', ['file:///cfg'])
    const a = openCall(broker, host('a'))
    const b = openCall(broker, host('b'))
    expect(await askFromTransport(broker, 'onListRoots')).toEqual({ roots: [{ uri: 'file:///cfg' }] })
    const refused = (await askFromTransport(broker, 'onElicit').catch((error: unknown) => error)) as RpcError
    expect(refused.message).toContain('2 calls of different hosts are in flight')
    await Promise.all([a.release(), b.release()])
  })

  test('a caller that cannot answer: roots from the config, elicitation refused', async () => {
    const broker = new Broker('up', ['file:///cfg'])
    const call = openCall(broker, {})
    expect(await askFromTransport(broker, 'onListRoots')).toEqual({ roots: [{ uri: 'file:///cfg' }] })
    const refused = (await askFromTransport(broker, 'onElicit').catch((error: unknown) => error)) as RpcError
    expect(refused.message).toContain('did not declare')
    await call.release()
  })

  test('a relayed call entered is the call in flight until it leaves, and its log lines come to it', async () => {
    const broker = new Broker('up', ['file:///cfg'])
    const lines: unknown[] = []
    const scope = { ...host('relayed'), log: (params: Record<string, unknown>) => void lines.push(params.data) }
    broker.enter(scope)
    expect(await askFromTransport(broker, 'onElicit')).toEqual({ action: 'accept', content: { from: 'relayed' } })
    broker.log({ level: 'info', data: 'step 1' })
    broker.leave(scope)
    broker.log({ level: 'info', data: 'after' })
    expect(lines).toEqual(['step 1'])
    expect(await askFromTransport(broker, 'onListRoots')).toEqual({ roots: [{ uri: 'file:///cfg' }] })
  })
})
