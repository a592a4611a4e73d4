/**
 * Tasks: the 2025-11-25 core (params.task, tasks/get|result|list|cancel) and the 2026-07-28
 * io.modelcontextprotocol/tasks extension (SEP-2663: resultType "task", tasks/get|update|cancel).
 */
import { RPC, RpcError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import type { EngineCore } from './engine.ts'
import type { ModernMeta } from './lifecycle.ts'
import type { HandlerContext, Json } from './types.ts'

export class TaskStore {
  constructor(readonly settings: Settings) {}
  async maybeStartLegacy(_engine: EngineCore, _params: Json, _makeCtx: () => HandlerContext, _signal: AbortSignal): Promise<Json | undefined> {
    return undefined
  }
  async maybeStartModern(_engine: EngineCore, _params: Json, _meta: ModernMeta, _makeCtx: () => HandlerContext, _signal: AbortSignal): Promise<Json | undefined> {
    return undefined
  }
  close(): void {}
}

export async function legacyTaskMethod(_engine: EngineCore, method: string, _params: Json): Promise<Json> {
  throw new RpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`)
}
export async function modernTaskMethod(_engine: EngineCore, method: string, _params: Json, _meta: ModernMeta): Promise<Json> {
  throw new RpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`)
}
