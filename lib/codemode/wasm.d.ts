// `import path from '<pkg>/wasm' with { type: 'file' }`: Bun hands back a path (embedded in --compile builds).
declare module '@jitl/quickjs-wasmfile-release-sync/wasm' {
  const path: string
  export default path
}
