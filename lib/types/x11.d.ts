// The `x11` package ships no type definitions; Glance wraps it in one module
// (lib/sandbox/agent/x11-driver.ts), so an untyped import is contained there.
declare module 'x11';
