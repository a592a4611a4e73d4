/** Tunables of the server engine (lib/server). */
import { defineSettings } from './define.ts'

export const SERVER_SETTINGS = defineSettings({
  listPageSize: {
    default: 500,
    env: 'MCPX_LIST_PAGE_SIZE',
    doc: 'Items per page of tools/prompts/resources/templates lists served (0 = one page)',
  },
})
