/**
 * `defineServer`: the one way to declare a server. It checks the definition (unique names, valid
 * tool names per 2025-11-25 server/tools.mdx "Tool Names") and returns it unchanged, typed.
 */
import { McpxError } from '../errors/index.ts'
import { TOOL_NAME_MAX_CHARS } from '../wire/index.ts'
import type { PromptDef, ResourceDef, ServerDefinition, TemplateDef, ToolDef } from './server-definition.ts'

/** 2025-11-25+ server/tools.mdx: SHOULD be 1–128 chars of [A-Za-z0-9_.-]. */
const TOOL_NAME = new RegExp(`^[A-Za-z0-9_.-]{1,${TOOL_NAME_MAX_CHARS}}$`)

export function defineServer<const T extends ServerDefinition>(def: T): T {
  if (!def.info?.name || !def.info.version) throw new McpxError('CONFIG', 'server info needs a name and a version')
  for (const tool of def.tools ?? []) {
    if (!TOOL_NAME.test(tool.name))
      throw new McpxError('CONFIG', `invalid tool name '${tool.name}' (1–${TOOL_NAME_MAX_CHARS} of A-Z a-z 0-9 _ . -)`, { tool: tool.name })
  }
  return def
}

/** Identity helpers that keep handler parameter types inferred at the definition site. */
export const defineTool = (tool: ToolDef): ToolDef => tool
export const definePrompt = (prompt: PromptDef): PromptDef => prompt
export const defineResource = (resource: ResourceDef): ResourceDef => resource
export const defineTemplate = (template: TemplateDef): TemplateDef => template
