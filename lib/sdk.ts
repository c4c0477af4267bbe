/** Glance's public SDK. */
export { Client } from './client/client';
export type { ClickAction, ScrollDirection, TypeOptions, ScrollOptions, ExecOptions, CommandEvent, FindResult } from './client/client';
export { Element, ElementNotFoundError } from './client/element';
export type { CacheInfo } from './client/element';
export type { ClientOptions, ConnectOptions, FindOptions, FindAllOptions, CacheOptions, RedrawOptions, AiOptions, Os, Preview } from './config/options';
export type { SandboxInstance } from './service/service';
export { GlanceError, InvalidOptionError, AuthError, StateError, SandboxError, ExecError } from './config/errors';
