/**
 * The parent environment reaches a stdio server only when the caller hands it over
 * (ConnectOptions.parentEnv); library code never passes mcpx's own environment on by itself.
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { type StdioLaunch, type TransportFactory, connect, defaultTransports } from '../../../lib/client/index.ts'
import { REPO_ROOT, testSettings } from '../../harness.ts'

const target = { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')], env: { OWN: '1' } }

function recording() {
  const launches: StdioLaunch[] = []
  const transports: TransportFactory = {
    ...defaultTransports,
    stdio(launch, settings) {
      launches.push(launch)
      return defaultTransports.stdio(launch, settings)
    },
  }
  return { launches, transports }
}

test('connect hands parentEnv to the stdio transport with the target unchanged', async () => {
  const { launches, transports } = recording()
  const parentEnv = { PATH: '/usr/bin', FROM_PARENT: 'yes' }
  await using client = await connect(target, { settings: testSettings(), revision: '2025-11-25', parentEnv, transports })
  expect(client.era).toBe('legacy')
  expect(launches).toEqual([{ ...target, parentEnv }])
})

test('without parentEnv the launch carries none', async () => {
  const { launches, transports } = recording()
  await using client = await connect(target, { settings: testSettings(), revision: '2025-11-25', transports })
  expect(client.era).toBe('legacy')
  expect(launches).toEqual([target])
  expect(launches[0]).not.toHaveProperty('parentEnv')
})
