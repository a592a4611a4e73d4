/**
 * The guest-side prelude evaluated in every fresh QuickJS context before the script. It takes the
 * host functions off `globalThis` into a closure (so the script cannot call them with forged
 * arguments), then defines `mcpx.call/search/namespaces`, one frozen object per server with a method
 * per tool, `ToolError`, and a capped `console`. Only strings cross the boundary: arguments are
 * JSON-encoded here, answers are JSON-decoded here, so no host object is ever reachable.
 */
import type { NamespaceAlias } from './identifiers.ts'
import { RUN_HOOK } from './transpile.ts'

/** Global the child installs before the prelude runs; the prelude deletes it. */
export const HOST_GLOBAL = '__mcpx_host'
/** Global the prelude leaves for the exec's own settings; the first call deletes it. */
const INSTALL_GLOBAL = '__mcpx_install'

const PRELUDE_BODY = String.raw`
'use strict';
const host = globalThis.${HOST_GLOBAL};
delete globalThis.${HOST_GLOBAL};
host.dropped = 0;
const hostCall = host.call, hostLog = host.log, hostDone = host.done, hostFail = host.fail;
const stringify = JSON.stringify, parse = JSON.parse, StringCtor = String, freeze = Object.freeze, then = Promise.prototype.then, apply = Reflect.apply;
let config, maxLine = 0;
const PROBED = new Set(['then', 'catch', 'finally', 'toJSON', 'constructor', 'toString', 'toLocaleString', 'valueOf', 'inspect', 'prototype', '__proto__']);

class ToolError extends Error {
  constructor(error) {
    super(StringCtor(error && error.message));
    this.name = 'ToolError';
    this.code = error && error.code;
    if (error && error.rpcCode !== undefined) this.rpcCode = error.rpcCode;
    if (error && error.data !== undefined) this.data = error.data;
  }
}

async function invoke(kind, name, args) {
  if (typeof name !== 'string') throw new TypeError(kind === 'call' ? 'mcpx.call: tool name must be a string "server.tool"' : 'mcpx.search: query must be a string');
  if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args))) throw new TypeError('tool arguments must be an object');
  const json = stringify(args === undefined || args === null ? {} : args);
  const reply = parse(await hostCall(kind, name, json));
  if (reply.ok) return reply.value;
  throw new ToolError(reply.error);
}

function show(value) {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return StringCtor(value.stack || value);
  try {
    const text = stringify(value, (k, v) => (typeof v === 'bigint' ? StringCtor(v) + 'n' : v));
    return text === undefined ? StringCtor(value) : text;
  } catch (e) {
    try { return StringCtor(value); } catch (e2) { return '[unprintable]'; }
  }
}

let logLines = 0;
function logger(prefix) {
  return function (...parts) {
    // Past the cap, count without formatting or crossing into the host: a log flood stays cheap.
    if (logLines >= config.maxLogLines) { host.dropped = (host.dropped | 0) + 1; return; }
    logLines++;
    let line = prefix;
    for (let i = 0; i < parts.length; i++) {
      if (line.length > maxLine) break;
      line += (i === 0 ? '' : ' ') + show(parts[i]);
    }
    hostLog(line.length > maxLine ? line.slice(0, maxLine) : line);
  };
}

function describe(error) {
  try {
    if (error instanceof Error) return stringify({ name: StringCtor(error.name), message: StringCtor(error.message), stack: StringCtor(error.stack || '') });
    return stringify({ name: 'Error', message: 'Uncaught ' + show(error) });
  } catch (e) {
    return stringify({ name: 'Error', message: 'Uncaught exception' });
  }
}

function install(json) {
config = parse(json);
maxLine = config.maxLogLineBytes;
const mcpx = freeze({
  call: (name, args) => invoke('call', name, args),
  search: (query, options) => invoke('search', query, options),
  namespaces: freeze(parse(stringify(config.namespaces))),
});

const globalDefs = { mcpx: mcpx, ToolError: ToolError };
for (const ns of config.aliases) {
  const obj = Object.create(null);
  for (const tool of ns.tools) {
    const qualified = ns.server + '.' + tool.name;
    Object.defineProperty(obj, tool.alias, { value: (args) => invoke('call', qualified, args), enumerable: true });
  }
  // The exact upstream name reaches the tool too (obj["get-structured-content"]), and ns.call(name, args).
  for (const tool of ns.tools) {
    if (tool.name !== tool.alias && !Object.prototype.hasOwnProperty.call(obj, tool.name)) {
      Object.defineProperty(obj, tool.name, { value: (args) => invoke('call', ns.server + '.' + tool.name, args), enumerable: false });
    }
  }
  if (!Object.prototype.hasOwnProperty.call(obj, 'call')) {
    Object.defineProperty(obj, 'call', { value: (name, args) => invoke('call', ns.server + '.' + name, args), enumerable: false });
  }
  // A name the server does not list is still a call, which the host answers NOT_FOUND with a did-you-mean
  // (a plain object gave "TypeError: not a function"); 'name' in ns, Object.keys and the probes that
  // await, JSON and printing make (then, toJSON, …) see only what is listed.
  globalDefs[ns.alias] = new Proxy(freeze(obj), {
    get(target, key) {
      if (typeof key !== 'string' || key in target || PROBED.has(key)) return target[key];
      return (args) => invoke('call', ns.server + '.' + key, args);
    },
  });
}
for (const key of Object.keys(globalDefs)) Object.defineProperty(globalThis, key, { value: globalDefs[key], writable: false, configurable: false });

globalThis.console = freeze({ log: logger(''), info: logger(''), debug: logger('[debug] '), warn: logger('[warn] '), error: logger('[error] ') });

Object.defineProperty(globalThis, '${RUN_HOOK}', {
  value: function (promise) {
    apply(then, promise, [
      (value) => {
        let text;
        try { text = value === undefined ? 'null' : stringify(value, (k, v) => (typeof v === 'bigint' ? StringCtor(v) : v)); }
        catch (e) { hostFail(describe(e)); return; }
        hostDone(text === undefined ? 'null' : text);
      },
      (error) => hostFail(describe(error)),
    ]);
  },
});
}

Object.defineProperty(globalThis, '${INSTALL_GLOBAL}', {
  value: function (json) { delete globalThis.${INSTALL_GLOBAL}; install(json); },
  configurable: true,
});
`

export interface PreludeConfig {
  readonly namespaces: Readonly<Record<string, readonly string[]>>
  readonly aliases: readonly NamespaceAlias[]
  readonly maxLogLineBytes: number
  readonly maxLogLines: number
}

/**
 * The prelude, evaluated ahead of time in spare contexts (parsing it is most of an exec's start):
 * it defines everything and leaves one install function for the exec's own config.
 */
export const PRELUDE_SOURCE = `(function () {${PRELUDE_BODY}})();`

/** The per-exec step: hand the config to the prelude's install function (which then deletes itself). */
export function renderInstall(config: PreludeConfig): string {
  return `${INSTALL_GLOBAL}(${JSON.stringify(JSON.stringify(config))});`
}
