/** Glance's public SDK. */
export { Client } from './client/client';
export type { ClickAction, ScrollDirection, TypeOptions, ScrollOptions, ExecOptions, CommandEvent } from './client/client';
export type { ClientOptions, ConnectOptions, CacheOptions, RedrawOptions, AiOptions, Os, Preview } from './config/options';
export type { SandboxInstance } from './service/service';
export { GlanceError, InvalidOptionError, AuthError, StateError, SandboxError, ExecError } from './config/errors';
