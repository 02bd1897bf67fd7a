// The harness in one import.
export * from './paths.mjs';
export * from './procs.mjs';
export * from './http.mjs';
export * from './everything.mjs';
export * from './gate.mjs';
export * from './client.mjs';
export * from './shim.mjs';
export * from './task-server.mjs';
export * from './modern-server.mjs';
export * from './task-server-v2.mjs';
export * from './hooks.mjs';
export * from './postgres.mjs';
export * from './recording-proxy.mjs';
export * from './silent-server.mjs';
export * from './idp.mjs';
export * from './metrics.mjs';
export * from './redis.mjs';
