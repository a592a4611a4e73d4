/** The probe room: what a server speaks (era, revisions, transport, auth), for `mcpx probe`. */
export { classify, type Observation, type ProbeReport } from './classify.ts'
export { probeFailure, runProbe, type ProbeOptions, type ProbeResult } from './run-probe.ts'
